// RUN: quilt-opt %s --ukernel-attach-target=target=a100 --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=A100
// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=MI300
// RUN: quilt-opt %s --ukernel-attach-target=target=rx7900xtx --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=RDNA3

// Host side: the operands' device pointers and sizes are checked first
// (Conversion/Utils/OperandChecks.cpp, as on the host; the first check is
// that A has no negative size): a failed check is
// reported and launches nothing. Then the cost model at run time picks the
// kernel and a patch's remainder; each region launches its candidate with a
// grid from the region's dynamic size and the candidate's dynamic workgroup
// memory.
// A100-LABEL: func.func @mm_f16(
// A100-SAME:    %[[A:[^:]+]]: memref<?x?xf16>, %[[B:[^:]+]]: memref<?x?xf16>, %[[C:[^:]+]]: memref<?x?xf32>
// A100-DAG:     memref.extract_aligned_pointer_as_index %[[A]]
// A100-DAG:     memref.extract_aligned_pointer_as_index %[[B]]
// A100-DAG:     memref.extract_aligned_pointer_as_index %[[C]]
// A100:         %[[CHECK:.*]] = arith.select %{{.*}}, %c16777244_i32, %{{.*}} : i32
// A100:         %[[FAILED:.*]] = arith.cmpi ne, %[[CHECK]], %c0_i32
// A100:         scf.if %[[FAILED]] {
// A100-NEXT:      %[[DESC:.*]] = llvm.mlir.addressof @__quilt_dispatch_description
// A100-NEXT:      func.call @quilt_rt_report_operand_error(%[[DESC]], %[[CHECK]],
// A100-NEXT:    } else {
// A or B whose rows do not start on 16-byte boundaries is copied to aligned
// rows first (operand-repack.mlir); nothing else is launched before the
// selection.
// A100-NOT:       gpu.launch_func @quilt_nvidia_kernels::@quilt_mma
// A100:           func.call @quilt_gpu_operand_copies(
// A100:           gpu.launch_func @quilt_nvidia_kernels::@quilt_repack_f16_2d
// A100:           gpu.launch_func @quilt_nvidia_kernels::@quilt_repack_f16_2d
// A100-NOT:       gpu.launch_func @quilt_nvidia_kernels::@quilt_mma
// A100:         call @quilt_rt_select(
// One candidate: each region launches it, with no switch on the index.
// A100-NOT:     scf.index_switch
// A100:         memref.extract_aligned_pointer_as_index
// The flags (VectorFlags) say which operands are aligned for vector
// accesses: C (4) when its window starts on 8 bytes and its row stride is
// even, for the kernel's pairs of f32.
// A100:         memref.extract_aligned_pointer_as_index %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>> -> index
// A100:         %[[CMIS:.*]] = arith.remui %{{.*}}, %c8{{(_[0-9]+)?}} : index
// A100-NEXT:    %[[CSTART:.*]] = arith.cmpi eq, %[[CMIS]], %c0{{.*}}
// A100:         %[[CPITCH:.*]] = arith.remui %{{.*}}, %c2{{(_[0-9]+)?}} : index
// A100-NEXT:    %[[CROWS:.*]] = arith.cmpi eq, %[[CPITCH]], %c0{{.*}}
// A100:         %[[CALIGNED:.*]] = arith.andi %[[CSTART]], %[[CROWS]] : i1
// A100:         %[[CBIT:.*]] = arith.select %[[CALIGNED]], %c4_i32, %c0_i32{{.*}} : i32
// A100:         arith.ori %{{.*}}, %[[CBIT]] : i32
// A100:         gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_[[MMA:[0-9x_a-z]+]]_f16_f32 blocks in (%{{.*}}, %{{.*}}, %c1{{(_[0-9]+)?}}) threads in (%c{{[0-9]+}}, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c{{[0-9]+}}_i32 args(%{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>, %{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>, %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}} : i32)
// A100-NOT:     scf.index_switch
// A100:         gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_[[MMA]]_f16_f32

// A C whose rows are not contiguous gets its own kernel (`_sc`), which
// multiplies the column by C's inner stride; a contiguous C's kernel
// addresses its elements without that product (fewer registers held
// through the epilogue).
// A100-LABEL: func.func @mm_strided_c(
// A100:         gpu.launch_func @quilt_nvidia_kernels::@quilt_mma_sync_f16_[[MMA]]_f16_f32_sc {{.*}} %{{.*}} : memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}} : i32)

// A batch walks grid z, 65535 matrices a launch at most: a loop over
// chunks of that many, each launch on windows of its chunk's matrices.
// A100-LABEL: func.func @bmm_f32(
// A100:         } else {
// A100:         %[[B:.*]] = memref.dim %arg2, %c0
// A100:         %[[CHUNK:.*]] = arith.constant 65535 : index
// A100:         scf.for %[[FIRST:.*]] = %{{.*}} to %[[B]] step %[[CHUNK]] {
// A100-NEXT:      %[[LEFT:.*]] = arith.subi %[[B]], %[[FIRST]] : index
// A100-NEXT:      %[[COUNT:.*]] = arith.minsi %[[CHUNK]], %[[LEFT]] : index
// A100:           memref.subview %{{.*}}[%[[FIRST]], 0, 0] [%[[COUNT]], %{{.*}}, %{{.*}}] [1, 1, 1]
// A100:           gpu.launch_func @quilt_nvidia_kernels::@quilt_simt_fma_{{.*}}_f32_f32_batch blocks in (%{{.*}}, %{{.*}}, %[[COUNT]])

// Device side (sm_80: cp.async): dynamic workgroup memory holds `stages`
// pairs of A and B tiles, each in its stored layout (A 16 x 64, B 64 x 32
// halves for this 16x32x64 candidate), unpadded: the 16-byte chunks of
// each row are XOR-swizzled (by row % 8 in A's 128-byte rows, by
// (row / 2) % 4 in B's 64-byte ones) so that the 8 rows an ldmatrix
// reads fall in distinct banks; the first stages - 1 K steps
// are copied ahead with cp.async (zero-filling past the matrix; element
// copies when the host found the operand unaligned), then each step waits
// for its group, synchronizes, copies a later step and multiplies, reading
// A's fragments with ldmatrix and B's (K-major here) with ldmatrix.trans,
// one .x4 for the warp's two 8-column instruction tiles (registers 0, 2 of
// the first, 1, 3 of the second).
// A100:       gpu.module @quilt_nvidia_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// A100-LABEL:   gpu.func @quilt_mma_sync_f16_16x32x64_t64_w1x2_tt2x4_v8_f16_f32(
// A100-SAME:      kernel
// A100-SAME:      known_block_size = array<i32: 64, 1, 1>
// The swizzled tiles are addressed as elements of one view of the 4
// stages (4 x (16 x 64 + 64 x 32) halves), each index permuted whole.
// A100:           gpu.dynamic_shared_memory
// A100:           %[[TILES:.*]] = memref.view {{.*}} to memref<12288xf16, #gpu.address_space<workgroup>>
// A100:           memref.view {{.*}} to memref<64x32xf16, #gpu.address_space<workgroup>>
// A100:           memref.view {{.*}} to memref<16x64xf16, #gpu.address_space<workgroup>>
// A100:           %[[ACOPYAT:.*]] = arith.xori
// A100-NEXT:      nvgpu.device_async_copy %arg0[{{.*}}], %[[TILES]][%[[ACOPYAT]]], 8, %{{.*}} {bypassL1} : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<12288xf16, #gpu.address_space<workgroup>>
// A100:           nvgpu.device_async_copy %arg1[{{.*}}], %[[TILES]][%{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<12288xf16, #gpu.address_space<workgroup>>
// A100:           nvgpu.device_async_create_group
// A100:           scf.for
// A100:             nvgpu.device_async_wait %{{.*}} {numGroups = {{[0-9]+}} : i32}
// A100-NEXT:        gpu.barrier
// A100:             nvgpu.device_async_copy %arg0
// A100:             nvgpu.device_async_create_group
// A100:             %[[AAT:.*]] = arith.xori
// A100-NEXT:        %[[AFRAG:.*]] = nvgpu.ldmatrix %[[TILES]][%[[AAT]]] {numTiles = 4 : i32, transpose = false} : memref<12288xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// A100:             %[[BAT:.*]] = arith.xori
// A100-NEXT:        %[[BFRAGS:.*]] = nvgpu.ldmatrix %[[TILES]][%[[BAT]]] {numTiles = 4 : i32, transpose = true} : memref<12288xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// A100:             vector.extract %[[BFRAGS]][0]
// A100:             vector.extract %[[BFRAGS]][2]
// A100:             vector.extract %[[BFRAGS]][1]
// A100:             vector.extract %[[BFRAGS]][3]
// A100:             nvgpu.mma.sync(%[[AFRAG]], {{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// A100-NEXT:        nvgpu.mma.sync(%[[AFRAG]], {{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// The next K step, 16 halves on: A's fragment index is the first one's
// XORed with 16 (its chunk bits), B's 16 rows of 32 halves further.
// A100:             %[[ANEXT:.*]] = arith.xori %{{.*}}, %c16{{.*}} : index
// A100-NEXT:        nvgpu.ldmatrix %[[TILES]][%[[ANEXT]]] {numTiles = 4 : i32, transpose = false}
// A100:             %[[BNEXT:.*]] = arith.addi %{{.*}}, %c512 : index
// A100-NEXT:        nvgpu.ldmatrix %[[TILES]][%[[BNEXT]]] {numTiles = 4 : i32, transpose = true}
// A100:             scf.yield
// The epilogue, with C aligned (flag 4): a block whose tile lies inside C
// reads and writes each fragment row's pair of columns with one 8-byte
// vector access and checks no bounds; a block on C's edge does so for each
// pair inside C (its row inside, both columns inside) and writes the other
// pairs element by element, each where it lies inside C. Without the
// flag, every element on its own.
// A100:           %[[FLAG:.*]] = arith.andi %arg3, %c4_i32 : i32
// A100:           %[[VECTORC:.*]] = arith.cmpi ne, %[[FLAG]], %c0_i32
// A100:           %[[ENDN:.*]] = arith.addi %{{.*}}, %c32{{.*}} : index
// A100:           %[[ENDM:.*]] = arith.addi %{{.*}}, %c16{{.*}} : index
// A100:           %[[COLSIN:.*]] = arith.cmpi sle, %[[ENDN]], %[[N:.*]] : index
// A100:           %[[ROWSIN:.*]] = arith.cmpi sle, %[[ENDM]], %[[M:.*]] : index
// A100:           %[[INSIDE:.*]] = arith.andi %[[ROWSIN]], %[[COLSIN]] : i1
// A100:           scf.if %[[VECTORC]] {
// A100-NEXT:        scf.if %[[INSIDE]] {
// A100-NOT:           scf.if
// A100-COUNT-4:       vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<2xf32>
// A100-NOT:           vector.store
// A100:             } else {
// A100:               %[[RUNEND:.*]] = arith.addi %[[COL:.*]], %c2{{.*}} : index
// A100-NEXT:          %[[RUNCOLS:.*]] = arith.cmpi sle, %[[RUNEND]], %[[N]] : index
// A100-NEXT:          %[[RUNROW:.*]] = arith.cmpi slt, %[[ROW:.*]], %[[M]] : index
// A100-NEXT:          %[[RUNIN:.*]] = arith.andi %[[RUNROW]], %[[RUNCOLS]] : i1
// A100-NEXT:          scf.if %[[RUNIN]] {
// A100-NEXT:            vector.load %arg2[%[[ROW]], %[[COL]]] {alignment = 8 : i64}
// A100:                 vector.store %{{.*}}, %arg2[%[[ROW]], %[[COL]]] {alignment = 8 : i64}
// A100-NEXT:          } else {
// A100-NOT:             vector.store
// A100:                 scf.if
// A100-NEXT:              memref.load %arg2[%[[ROW]], %{{.*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>
// A100:                   memref.store %{{.*}}, %arg2[%[[ROW]], %{{.*}}]
// A100:           } else {
// A100-NOT:         vector.store
// A100:             scf.if
// A100:               memref.load %arg2[{{.*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>
// A100:               arith.addf
// A100:               memref.store %{{.*}}, %arg2
// A100:           gpu.return
// A100-LABEL:   gpu.func @quilt_mma_sync_f16_16x32x64_t64_w1x2_tt2x4_v8_f16_f32_sc(
// A strided C is written element by element.
// A100-NOT:       vector.store
// A100:           memref.load %arg2[{{.*}}] : memref<?x?xf32, strided<[?, ?], offset: ?>>
// A100-NOT:       vector.store
// A100:           gpu.return
// A batched kernel takes block z's matrices as rank-2 views once, so its
// addresses are those of a matmul's (a third index in every address cost
// 20-40 registers).
// A100-LABEL:   gpu.func @quilt_simt_fma_{{.*}}_batch
// A100:           %[[Z:.*]] = gpu.block_id z
// A100:           %[[A:.*]] = memref.subview %arg0[%[[Z]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// A100:           memref.subview %arg1[%[[Z]], 0, 0]
// A100:           %[[C:.*]] = memref.subview %arg2[%[[Z]], 0, 0]
// A100:           vector.load %[[A]][%{{[^,]*}}, %{{[^,]*}}] {{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
// A100:           vector.load {{.*}} #gpu.address_space<workgroup>>, vector<{{[0-9]+}}xf32>
// A100:           vector.fma
// A100:           memref.load %[[C]][%{{[^,]*}}, %{{[^,]*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>

// MI300-LABEL: func.func @mm_f16(
// MI300:         gpu.launch_func @quilt_amdgpu_kernels::@quilt_mfma_
// MI300:       gpu.module @quilt_amdgpu_kernels [#rocdl.target<O = 3, chip = "gfx942">]
// MI300:         amdgpu.mfma

// RDNA3-LABEL: func.func @mm_f16(
// RDNA3:         gpu.launch_func @quilt_amdgpu_kernels::@quilt_wmma_16x16x16_
// RDNA3:       gpu.module @quilt_amdgpu_kernels [#rocdl.target<O = 3, chip = "gfx1100">]
// RDNA3:         amdgpu.wmma {{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>

func.func @mm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}

func.func @mm_strided_c(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32, strided<[?, 2], offset: ?>>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32, strided<[?, 2], offset: ?>>)
  return
}

func.func @bmm_f32(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}
