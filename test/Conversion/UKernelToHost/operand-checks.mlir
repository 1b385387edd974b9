// RUN: quilt-opt %s -split-input-file --convert-ukernel-to-host | FileCheck %s
// RUN: quilt-opt %s -split-input-file --convert-ukernel-to-host --canonicalize | FileCheck %s --check-prefix=FOLD

// Run-time operand checks (Conversion/Utils/OperandChecks.cpp): each
// dispatch compares its sizes and data pointers, picks the first failed
// check (QUILT_RT_CHECK_* of QuiltRuntime.h) with its two sizes, and either
// reports it or runs: the whole expansion sits in the else branch.

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// A matmul: A, B and C may be null only without elements; B's rows (K)
// must equal A's columns, C's rows A's rows (M), C's columns B's (N).
// CHECK-DAG: llvm.mlir.global internal constant @[[DESC:__quilt_dispatch_description[_0-9]*]]("@matmul dispatch 0 (matmul f32)\00")
// CHECK-DAG: func.func private @quilt_rt_report_operand_error(!llvm.ptr, i32, i64, i64) -> i32
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]+]]: memref<?x?xf32>, %[[B:[^:]+]]: memref<?x?xf32>, %[[C:[^:]+]]: memref<?x?xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// Each operand's sizes may not be negative, then its pointer may be null
// only without elements.
// CHECK: %[[AR:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[ARNEG:.*]] = arith.cmpi slt, %[[AR]], %[[ZERO]]
// CHECK: %[[AC:.*]] = memref.dim %[[A]], %c1
// CHECK: %[[ACNEG:.*]] = arith.cmpi slt, %[[AC]], %[[ZERO]]
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[ANULL:.*]] = arith.cmpi eq, %[[PA]], %[[ZERO]]
// CHECK: %[[ARNZ:.*]] = arith.cmpi ne, %[[AR]], %[[ZERO]]
// CHECK: %[[T:.*]] = arith.andi %[[ANULL]], %[[ARNZ]]
// CHECK: %[[ACNZ:.*]] = arith.cmpi ne, %[[AC]], %[[ZERO]]
// CHECK: %[[BADA:.*]] = arith.andi %[[T]], %[[ACNZ]]
// CHECK: arith.muli %[[AR]], %[[AC]]
// CHECK: %[[BR:.*]] = memref.dim %[[B]], %c0
// CHECK: %[[BC:.*]] = memref.dim %[[B]], %c1
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[CR:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[CC:.*]] = memref.dim %[[C]], %c1
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: %[[BADK:.*]] = arith.cmpi ne, %[[BR]], %[[AC]]
// CHECK: %[[BADM:.*]] = arith.cmpi ne, %[[CR]], %[[AR]]
// CHECK: %[[BADN:.*]] = arith.cmpi ne, %[[CC]], %[[BC]]
// The chain starts from the last check, so the first failed one wins.
// CHECK: arith.select %[[BADN]], %c9_i32, %c0_i32
// CHECK: arith.select %[[BADM]], %c8_i32,
// CHECK: arith.select %[[BADK]], %c7_i32,
// CHECK: arith.select %{{.*}}, %c3_i32,
// CHECK: arith.select %{{.*}}, %c2_i32,
// CHECK: arith.select %[[BADA]], %c1_i32,
// A negative size of A's: 28 | A's null check (1) << 24 | dimension << 12.
// CHECK: arith.select %[[ACNEG]], %c16781340_i32,
// CHECK: %[[CODE:.*]] = arith.select %[[ARNEG]], %c16777244_i32,
// CHECK: %[[GOT:.*]] = arith.select %[[ARNEG]], %{{.*}} : i64
// CHECK: %[[WANT:.*]] = arith.select %[[ARNEG]], %{{.*}} : i64
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[CODE]], %c0_i32
// CHECK: scf.if %[[FAILED]] {
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.addressof @[[DESC]]
// CHECK-NEXT: func.call @quilt_rt_report_operand_error(%[[D]], %[[CODE]], %[[GOT]], %[[WANT]])
// CHECK-NEXT: } else {
// CHECK: call @quilt_rt_select
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32(
// CHECK-NEXT: }
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32(
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {ukernel.target = #cpu8} {
  func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Transposed operands: A is stored K x M, B N x K; the K, M and N checks
// carry QUILT_RT_CHECK_TRANSPOSED_A (256) / _B (512) so that the message
// names the stored dimensions: K = 7 + 256 + 512, M = 8 + 256, N = 9 + 512.
// CHECK: @__quilt_dispatch_description{{[_0-9]*}}("@transposed dispatch 0 (matmul f32, A transposed, B transposed)\00")
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME: %[[A:[^:]+]]: memref<?x?xf32>, %[[B:[^:]+]]: memref<?x?xf32>, %[[C:[^:]+]]: memref<?x?xf32>)
// CHECK: %[[AR:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[AC:.*]] = memref.dim %[[A]], %c1
// CHECK: %[[BR:.*]] = memref.dim %[[B]], %c0
// CHECK: %[[BC:.*]] = memref.dim %[[B]], %c1
// CHECK: %[[CR:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[CC:.*]] = memref.dim %[[C]], %c1
// CHECK: %[[BADK:.*]] = arith.cmpi ne, %[[BC]], %[[AR]]
// CHECK: %[[BADM:.*]] = arith.cmpi ne, %[[CR]], %[[AC]]
// CHECK: %[[BADN:.*]] = arith.cmpi ne, %[[CC]], %[[BR]]
// CHECK: arith.select %[[BADN]], %c521_i32,
// CHECK: arith.select %[[BADM]], %c264_i32,
// CHECK: arith.select %[[BADK]], %c775_i32,
module attributes {ukernel.target = #cpu8} {
  func.func @transposed(%at: memref<?x?xf32>, %bt: memref<?x?xf32>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%at, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// A batch with a bias: B's and C's batch must equal A's, the bias's length
// C's columns; the bias may be null only when empty. Dispatches are
// numbered per function.
// CHECK-DAG: @[[D0:__quilt_dispatch_description[_0-9]*]]("@two dispatch 0 (batch_matmul f16)\00")
// CHECK-DAG: @[[D1:__quilt_dispatch_description[_0-9]*]]("@two dispatch 1 (matmul f32)\00")
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[A:[^:]+]]: memref<?x?x?xf16>, %[[B:[^:]+]]: memref<?x?x?xf16>, %[[C:[^:]+]]: memref<?x?x?xf32>, %[[BIAS:[^:]+]]: memref<?xf32>
// CHECK: %[[AS:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[BS:.*]] = memref.dim %[[B]], %c0
// CHECK: %[[CS:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[CN:.*]] = memref.dim %[[C]], %c2
// CHECK: %[[BL:.*]] = memref.dim %[[BIAS]], %c0
// CHECK: memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: %[[BADBB:.*]] = arith.cmpi ne, %[[BS]], %[[AS]]
// CHECK: %[[BADCB:.*]] = arith.cmpi ne, %[[CS]], %[[AS]]
// CHECK: %[[BADBIAS:.*]] = arith.cmpi ne, %[[BL]], %[[CN]]
// CHECK: arith.select %[[BADBIAS]], %c10_i32, %c0_i32
// CHECK: arith.select %{{.*}}, %c9_i32,
// CHECK: arith.select %{{.*}}, %c8_i32,
// CHECK: arith.select %{{.*}}, %c7_i32,
// CHECK: arith.select %[[BADCB]], %c6_i32,
// CHECK: arith.select %[[BADBB]], %c5_i32,
// CHECK: arith.select %{{.*}}, %c4_i32,
// CHECK: llvm.mlir.addressof @[[D0]]
// CHECK: } else {
// CHECK: func.call @__quilt_host_gemm_{{.*}}_batch
// CHECK: llvm.mlir.addressof @[[D1]]
// CHECK: } else {
// CHECK: func.call @__quilt_host_gemm_12x32x8_r4x16_v8_f32_f32(
module attributes {ukernel.target = #cpu8} {
  func.func @two(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf32>, %bias: memref<?xf32>,
                 %x: memref<?x?xf32>, %y: memref<?x?xf32>, %z: memref<?x?xf32>) {
    ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf32>)
      bias(%bias : memref<?xf32>) epilogue [bias_add] candidates [#big]
    ukernel.dispatch matmul ins(%x, %y : memref<?x?xf32>, memref<?x?xf32>) outs(%z : memref<?x?xf32>)
      candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// An NCHW convolution (input N x C x H x W, filter F x C x R x S, output
// N x F x OH x OW) with strides [2, 1] and dilations [1, 3]: images,
// channels and filters must agree, and OH, OW must be
// max(floor((H - d(R-1) - 1) / s) + 1, 0); the bias has F elements.
// CHECK: ("@conv dispatch 0 (conv2d_nchw f32, strides 2x1, dilations 1x3)\00")
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[I:[^:]+]]: memref<?x?x?x?xf32>, %[[F:[^:]+]]: memref<?x?x?x?xf32>, %[[O:[^:]+]]: memref<?x?x?x?xf32>, %[[BIAS:[^:]+]]: memref<?xf32>
// CHECK: %[[IN:.*]] = memref.dim %[[I]], %c0
// CHECK: %[[IC:.*]] = memref.dim %[[I]], %c1
// CHECK: %[[IH:.*]] = memref.dim %[[I]], %c2
// CHECK: %[[IW:.*]] = memref.dim %[[I]], %c3
// CHECK: %[[FF:.*]] = memref.dim %[[F]], %c0
// CHECK: %[[FC:.*]] = memref.dim %[[F]], %c1
// CHECK: %[[FR:.*]] = memref.dim %[[F]], %c2
// CHECK: %[[FS:.*]] = memref.dim %[[F]], %c3
// CHECK: %[[ON:.*]] = memref.dim %[[O]], %c0
// CHECK: %[[OF:.*]] = memref.dim %[[O]], %c1
// CHECK: %[[OH:.*]] = memref.dim %[[O]], %c2
// CHECK: %[[OW:.*]] = memref.dim %[[O]], %c3
// CHECK: %[[BL:.*]] = memref.dim %[[BIAS]], %c0
// CHECK: %[[BADIMAGES:.*]] = arith.cmpi ne, %[[ON]], %[[IN]]
// CHECK: %[[BADCHANNELS:.*]] = arith.cmpi ne, %[[FC]], %[[IC]]
// CHECK: %[[BADFILTERS:.*]] = arith.cmpi ne, %[[OF]], %[[FF]]
// CHECK: %[[RM1:.*]] = arith.subi %[[FR]], %c1
// CHECK: %[[RD:.*]] = arith.muli %[[RM1]], %c1
// CHECK: %[[REXT:.*]] = arith.addi %[[RD]], %c1
// CHECK: %[[HSLACK:.*]] = arith.subi %[[IH]], %[[REXT]]
// CHECK: %[[HQ:.*]] = arith.floordivsi %[[HSLACK]], %c2
// CHECK: %[[HQ1:.*]] = arith.addi %[[HQ]], %c1
// CHECK: %[[WANTH:.*]] = arith.maxsi %[[HQ1]], %c0
// CHECK: %[[BADH:.*]] = arith.cmpi ne, %[[OH]], %[[WANTH]]
// CHECK: %[[SM1:.*]] = arith.subi %[[FS]], %c1
// CHECK: arith.muli %[[SM1]], %c3
// CHECK: %[[WQ:.*]] = arith.floordivsi %{{.*}}, %c1
// CHECK: %[[BADW:.*]] = arith.cmpi ne, %[[OW]], %{{.*}}
// CHECK: %[[BADBIAS:.*]] = arith.cmpi ne, %[[BL]], %[[OF]]
// CHECK: arith.select %[[BADBIAS]], %c19_i32, %c0_i32
// CHECK: arith.select %[[BADW]], %c15_i32,
// CHECK: arith.select %[[BADH]], %c14_i32,
// CHECK: arith.select %[[BADFILTERS]], %c13_i32,
// CHECK: arith.select %[[BADCHANNELS]], %c12_i32,
// CHECK: arith.select %[[BADIMAGES]], %c11_i32,
// CHECK: arith.select %{{.*}}, %c4_i32,
// CHECK: arith.select %{{.*}}, %c18_i32,
// CHECK: arith.select %{{.*}}, %c17_i32,
// CHECK: arith.select %{{.*}}, %c16_i32,
// CHECK: func.call @quilt_rt_report_operand_error(
// CHECK-NEXT: } else {
// CHECK: func.call @__quilt_host_conv2d_nchw_
module attributes {ukernel.target = #cpu8} {
  func.func @conv(%in: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32>, %out: memref<?x?x?x?xf32>, %bias: memref<?xf32>) {
    ukernel.dispatch conv2d_nchw ins(%in, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%out : memref<?x?x?x?xf32>)
      bias(%bias : memref<?xf32>) epilogue [bias_add] strides [2, 1] dilations [1, 3] candidates [#big]
    return
  }
}

// -----

#cpu8 = #ukernel.target<name = "cpu8", vendor = cpu, chip = "x86-64-v3", compute_units = 1, warp_size = 1, max_threads_per_block = 1, max_registers_per_thread = 16, l1_bytes = 32768, l2_bytes = 524288, l3_bytes = 1048576, mem_bandwidth_gbs = 20.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.064}, vector_bits = 256, fma_units_per_core = 2>
#big = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// Static sizes were compared by the verifier: their checks fold away and
// only the null-pointer checks are left (with the element counts).
// FOLD-LABEL: func.func @static(
// FOLD-NOT: memref.dim
// FOLD-NOT: arith.constant {{([5-9]|1[0-9])}} : i32
// FOLD: memref.extract_aligned_pointer_as_index
// FOLD: memref.extract_aligned_pointer_as_index
// FOLD: memref.extract_aligned_pointer_as_index
// FOLD: arith.select %{{.*}}, %c3_i32, %c0_i32
// FOLD: arith.select %{{.*}}, %c64_i64, %c0_i64
// FOLD: scf.if
// FOLD-NEXT: func.call @quilt_rt_report_operand_error
// FOLD-NEXT: } else {
module attributes {ukernel.target = #cpu8} {
  func.func @static(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      candidates [#big]
    return
  }
}
