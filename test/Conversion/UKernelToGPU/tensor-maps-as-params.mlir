// RUN: quilt-opt %s -split-input-file --quilt-gpu-tensor-maps-as-params | FileCheck %s

// A lowered TMA kernel marked by convert-ukernel-to-gpu: the arguments that
// TMA copies and prefetches read (5 and 6, after a memref's five fields)
// become byval, 128-byte aligned grid constants, and the marker goes. The
// launch's operands for them (its 2nd and 3rd) become the bytes its buffers
// hold; the memref and the flags stay as they were.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @tma(%alloc: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size: i64, %stride: i64, %mapA: !llvm.ptr, %mapB: !llvm.ptr, %flags: i32) attributes {gpu.kernel, nvvm.kernel, ukernel.tensor_maps_as_params} {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %bar = llvm.mlir.zero : !llvm.ptr<3>
      %dst = llvm.mlir.zero : !llvm.ptr<7>
      nvvm.prefetch tensormap, %mapA : !llvm.ptr
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %mapA, %bar, box[%c0, %c0] : !llvm.ptr<7>, !llvm.ptr
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %mapB, %bar, box[%c0, %c0] : !llvm.ptr<7>, !llvm.ptr
      llvm.store %c0, %aligned : i32, !llvm.ptr
      llvm.return
    }
  }
  func.func @launch(%c: memref<?xf32>, %bufferA: !llvm.ptr, %bufferB: !llvm.ptr, %flags: i32) {
    %one = arith.constant 1 : index
    gpu.launch_func @kernels::@tma blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%c : memref<?xf32>, %bufferA : !llvm.ptr, %bufferB : !llvm.ptr, %flags : i32)
    return
  }
}

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @tma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.align = 128 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 128 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: i32) attributes {gpu.kernel, nvvm.kernel} {
// CHECK-LABEL: func.func @launch(
// CHECK-SAME:      %[[C:.*]]: memref<?xf32>, %[[BUFA:.*]]: !llvm.ptr, %[[BUFB:.*]]: !llvm.ptr, %[[FLAGS:.*]]: i32)
// CHECK:         %[[MAPA:.*]] = llvm.load %[[BUFA]] {alignment = 128 : i64} : !llvm.ptr -> vector<16xi64>
// CHECK:         %[[MAPB:.*]] = llvm.load %[[BUFB]] {alignment = 128 : i64} : !llvm.ptr -> vector<16xi64>
// CHECK:         gpu.launch_func @kernels::@tma {{.*}} args(%[[C]] : memref<?xf32>, %[[MAPA]] : vector<16xi64>, %[[MAPB]] : vector<16xi64>, %[[FLAGS]] : i32)

// -----

// Kernels without the marker (an upstream nvgpu program's, whose maps are
// device pointers) are left alone.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @plain(%map: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      nvvm.prefetch tensormap, %map : !llvm.ptr
      llvm.return
    }
  }
  func.func @launch(%map: !llvm.ptr) {
    %one = arith.constant 1 : index
    gpu.launch_func @kernels::@plain blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%map : !llvm.ptr)
    return
  }
}

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @plain(%{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel}
// CHECK-LABEL: func.func @launch(
// CHECK-NOT:     llvm.load
// CHECK:         gpu.launch_func @kernels::@plain {{.*}} args(%{{.*}} : !llvm.ptr)
