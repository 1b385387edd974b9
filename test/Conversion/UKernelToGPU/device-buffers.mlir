// RUN: quilt-opt %s -split-input-file -verify-diagnostics --quilt-gpu-device-buffers | FileCheck %s

// CHECK-LABEL: func.func @buffers(
// CHECK-SAME:    %[[N:.*]]: index, %[[SRC:.*]]: memref<?xf32>)
// CHECK:         %[[A0:.*]] = gpu.wait async
// CHECK:         %[[BUF:.*]], %[[A1:.*]] = gpu.alloc async [%[[A0]]] (%[[N]]) : memref<?xf32>
// CHECK:         gpu.wait [%[[A1]]]
// CHECK:         %[[T0:.*]] = gpu.wait async
// CHECK:         %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[BUF]], %[[SRC]] : memref<?xf32>, memref<?xf32>
// CHECK:         gpu.wait [%[[T1]]]
// CHECK:         %[[T2:.*]] = gpu.wait async
// CHECK:         %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BUF]] : memref<?xf32>
// CHECK:         gpu.wait [%[[T3]]]
// CHECK-NOT:     memref.alloc
func.func @buffers(%n: index, %src: memref<?xf32>) {
  %buf = memref.alloc(%n) : memref<?xf32>
  memref.copy %src, %buf : memref<?xf32> to memref<?xf32>
  memref.dealloc %buf : memref<?xf32>
  return
}

// -----

// Kernels keep their own memory.
// CHECK-LABEL: gpu.module @kernels
// CHECK:         memref.alloca
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      %a = memref.alloca() : memref<4xf32>
      gpu.return
    }
  }
}

// -----

func.func @alloca() {
  // expected-error @+1 {{cannot be placed in device memory: a GPU program's host code may only allocate with memref.alloc}}
  %a = memref.alloca() : memref<4xf32>
  return
}

// -----

// Contiguous buffers whose types differ in static sizes: one copy, cast.
// CHECK-LABEL: func.func @static_sizes(
// CHECK-SAME:    %[[A:.*]]: memref<?x?x?xf32>, %[[B:.*]]: memref<1x2x3xf32>)
// CHECK:         %[[CAST:.*]] = memref.cast %[[A]] : memref<?x?x?xf32> to memref<1x2x3xf32>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[B]], %[[CAST]] : memref<1x2x3xf32>, memref<1x2x3xf32>
func.func @static_sizes(%a: memref<?x?x?xf32>, %b: memref<1x2x3xf32>) {
  memref.copy %a, %b : memref<?x?x?xf32> to memref<1x2x3xf32>
  return
}

// -----

// A strided view is no contiguous buffer (the GPU pipelines make such
// copies kernels before this pass).
func.func @layouts(%a: memref<?x?xf32, strided<[?, 1]>>, %b: memref<?x?xf32>) {
  // expected-error @+1 {{copies between different layouts ('memref<?x?xf32, strided<[?, 1]>>' to 'memref<?x?xf32>') are not supported in a GPU program's host code}}
  memref.copy %a, %b : memref<?x?xf32, strided<[?, 1]>> to memref<?x?xf32>
  return
}

// -----

// The deallocation pipeline's bookkeeping (base pointers and ownership
// flags handed to its private helper, read back on the host) stays in host
// memory, freed on the host; a buffer of i1 that a kernel may read does not.
// CHECK-LABEL: func.func @bookkeeping
// CHECK:         %[[PTRS:.*]] = memref.alloc() : memref<2xindex>
// CHECK:         %[[FLAGS:.*]] = memref.alloc() : memref<2xi1>
// CHECK:         call @helper
// CHECK:         memref.load %[[FLAGS]]
// CHECK:         memref.dealloc %[[FLAGS]]
// CHECK:         memref.dealloc %[[PTRS]]
// CHECK:         gpu.alloc async {{.*}} : memref<2xi1>
// CHECK-NOT:     memref.alloc
func.func private @helper(%ptrs: memref<?xindex>, %flags: memref<?xi1>) {
  return
}
func.func @bookkeeping(%p: index, %mask: memref<2xi1>) -> i1 {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %ptrs = memref.alloc() : memref<2xindex>
  %flags = memref.alloc() : memref<2xi1>
  memref.store %p, %ptrs[%c0] : memref<2xindex>
  memref.store %true, %flags[%c0] : memref<2xi1>
  %pc = memref.cast %ptrs : memref<2xindex> to memref<?xindex>
  %fc = memref.cast %flags : memref<2xi1> to memref<?xi1>
  call @helper(%pc, %fc) : (memref<?xindex>, memref<?xi1>) -> ()
  %r = memref.load %flags[%c0] : memref<2xi1>
  memref.dealloc %flags : memref<2xi1>
  memref.dealloc %ptrs : memref<2xindex>
  %device = memref.alloc() : memref<2xi1>
  memref.copy %mask, %device : memref<2xi1> to memref<2xi1>
  return %r : i1
}

// -----

// A declared function runs on the host: a device buffer it is passed is
// copied to a host buffer for the call, through the ranked buffer an
// unranked one was cast from; back after the call unless the callee only
// reads it.
// CHECK-LABEL: func.func @host_calls(
// CHECK-SAME:    %[[A:.*]]: memref<?x4xf32>, %[[B:.*]]: memref<8xi32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK:         %[[HOST:.*]] = memref.alloc(%[[M]]) : memref<?x4xf32>
// CHECK:         %[[T0:.*]] = gpu.wait async
// CHECK:         %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[HOST]], %[[A]]
// CHECK:         gpu.wait [%[[T1]]]
// CHECK:         %[[U:.*]] = memref.cast %[[HOST]] : memref<?x4xf32> to memref<*xf32>
// CHECK:         call @printMemrefF32(%[[U]])
// CHECK-NOT:     gpu.memcpy
// CHECK:         memref.dealloc %[[HOST]]
// CHECK:         %[[HB:.*]] = memref.alloc() : memref<8xi32>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[HB]], %[[B]]
// CHECK:         call @scale(%[[HB]])
// CHECK:         gpu.memcpy async [%{{.*}}] %[[B]], %[[HB]]
// CHECK:         memref.dealloc %[[HB]]
func.func private @printMemrefF32(memref<*xf32> {bufferization.access = "read"})
func.func private @scale(memref<8xi32>)
func.func @host_calls(%a: memref<?x4xf32>, %b: memref<8xi32>) {
  %u = memref.cast %a : memref<?x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @scale(%b) : (memref<8xi32>) -> ()
  return
}

// -----

func.func private @printMemrefF32(memref<*xf32>)
func.func @unranked_argument(%u: memref<*xf32>) {
  // expected-error @+1 {{passes an unranked buffer to @printMemrefF32, a host function; it cannot be copied out of device memory without its rank (cast a ranked buffer instead)}}
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// -----

func.func private @show(memref<?x?xf32, strided<[?, 1], offset: ?>>)
func.func @strided_view(%a: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.subview %a[%c0, %c0] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  // expected-error @+1 {{passes a strided view of device memory ('memref<?x?xf32, strided<[?, 1], offset: ?>>') to @show, a host function; copy it into a buffer of its own first}}
  call @show(%v) : (memref<?x?xf32, strided<[?, 1], offset: ?>>) -> ()
  return
}
