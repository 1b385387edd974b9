// RUN: quilt-opt %s -split-input-file -verify-diagnostics --quilt-gpu-host-accesses-to-kernels | FileCheck %s

// A cache update by stores into device memory (an argument) runs as a
// kernel of one thread where it was; the loop that only counts stays.
// CHECK-LABEL: func.func @store_loop
// CHECK:         %[[ONE:c1_[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.load %{{.*}} : memref<8xf32>
// CHECK-NEXT:        memref.store %{{.*}} : memref<4x8xf32>
// CHECK:           gpu.terminator
// CHECK:         scf.for
// CHECK-NOT:     gpu.launch
// CHECK:         return
func.func @store_loop(%cache: memref<4x8xf32>, %row: memref<8xf32>, %pos: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %row[%j] : memref<8xf32>
    memref.store %v, %cache[%pos, %j] : memref<4x8xf32>
  }
  %n = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %c0) -> index {
    %b = arith.addi %a, %j : index
    scf.yield %b : index
  }
  return %n : index
}

// -----

// A loop around host work (a call) is looked into: the loop nest of
// stores inside it moves, the call stays on the host.
// CHECK-LABEL: func.func @loop_around_a_call
// CHECK:         scf.for
// CHECK-NEXT:      func.call @host_work()
// CHECK:           gpu.launch
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          memref.store
func.func private @host_work()
func.func @loop_around_a_call(%buf: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    func.call @host_work() : () -> ()
    scf.for %j = %c0 to %n step %c1 {
      memref.store %v, %buf[%j] : memref<?xf32>
    }
  }
  return
}

// -----

// The host's own buffers (an allocation that stayed memref.alloc, a
// global) are read and written on the host.
// CHECK-LABEL: func.func @host_buffers
// CHECK-NOT:     gpu.launch
memref.global "private" constant @table : memref<4xf32> = dense<1.0>
func.func @host_buffers(%i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flags = memref.alloc() : memref<4xf32>
  %table = memref.get_global @table : memref<4xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    %t = memref.load %table[%j] : memref<4xf32>
    memref.store %t, %flags[%j] : memref<4xf32>
  }
  %r = memref.load %flags[%i] : memref<4xf32>
  memref.dealloc %flags : memref<4xf32>
  return %r : f32
}

// -----

// A value read from device memory that host code uses: a kernel reads it
// into a device cell, copied into a host cell that the host loads.
// CHECK-LABEL: func.func @host_uses_the_value
// CHECK-SAME:    (%[[BUF:.*]]: memref<?xf32>, %[[I:.*]]: index)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[DEV:.*]], %{{.*}} = gpu.alloc async {{.*}} () : memref<1xf32>
// CHECK:         gpu.launch
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[BUF]][%[[I]]]
// CHECK-NEXT:      memref.store %[[V]], %[[DEV]][%[[ZERO]]]
// CHECK:         %[[HOST:.*]] = memref.alloc() : memref<1xf32>
// CHECK:         gpu.memcpy async {{.*}} %[[HOST]], %[[DEV]]
// CHECK:         %[[R:.*]] = memref.load %[[HOST]][%[[ZERO]]]
// CHECK:         memref.dealloc %[[HOST]]
// CHECK:         gpu.dealloc async {{.*}} %[[DEV]]
// CHECK:         return %[[R]]
func.func @host_uses_the_value(%buf: memref<?xf32>, %i: index) -> f32 {
  %v = memref.load %buf[%i] : memref<?xf32>
  return %v : f32
}

// -----

// Beside host work in a loop, each access moves alone: the load through a
// host cell (its value goes to a call), the store into its own kernel.
// CHECK-LABEL: func.func @accesses_beside_host_work
// CHECK:         scf.for
// CHECK:           gpu.launch
// CHECK-NEXT:        memref.load
// CHECK:           gpu.memcpy
// CHECK:           %[[W:.*]] = memref.load %{{.*}} : memref<1xf32>
// CHECK:           func.call @host_work(%[[W]])
// CHECK:           gpu.launch
// CHECK-NEXT:        memref.store %[[W]]
func.func private @host_work(f32)
func.func @accesses_beside_host_work(%buf: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %w = memref.load %buf[%j] : memref<?xf32>
    func.call @host_work(%w) : (f32) -> ()
    memref.store %w, %buf[%c0] : memref<?xf32>
  }
  return
}

// -----

// Code that reads a global (host memory) and writes device memory: the
// global is read on the host, each store runs as a kernel.
// CHECK-LABEL: func.func @global_into_device
// CHECK:         scf.for
// CHECK-NEXT:      %[[T:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK:           gpu.launch
// CHECK-NEXT:        memref.store %[[T]]
memref.global "private" constant @weights : memref<4xf32> = dense<2.0>
func.func @global_into_device(%buf: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %w = memref.get_global @weights : memref<4xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    %t = memref.load %w[%j] : memref<4xf32>
    memref.store %t, %buf[%j] : memref<4xf32>
  }
  return
}

// -----

// An atomic update whose old value the host uses has no form here.
func.func @atomic_old_value(%buf: memref<4xf32>, %v: f32, %i: index) -> f32 {
  // expected-error @below {{updates device memory atomically in host code and returns the old value to it}}
  %old = memref.atomic_rmw addf %v, %buf[%i] : (f32, memref<4xf32>) -> f32
  return %old : f32
}
