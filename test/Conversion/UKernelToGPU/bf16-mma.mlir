// RUN: quilt-opt %s --convert-ukernel-to-gpu | FileCheck %s

// bf16 on NVIDIA tensor cores: nvgpu.mma.sync lowers f16 and tf32 only, so
// the engine issues nvvm.mma.sync itself, each register's pair of bf16
// passed as an i32, the four f32 of C as a struct.
#a100 = #ukernel.target<name = "a100", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l1_bytes = 196608, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, onchip_bytes_per_clock = 128.0, peak_tflops = {simt_fma = 19.5, mma_sync_f16 = 312.0, mma_sync_tf32 = 156.0}>
#mma = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>

module attributes {ukernel.target = #a100} {
  func.func @bf16_mma(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
    ukernel.dispatch matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
      candidates [#mma]
    return
  }
}

// CHECK-LABEL: gpu.func @quilt_mma_sync_f16_64x64x32_t64_w1x2_tt8x8_v8_bf16_f32(
// CHECK:         nvgpu.device_async_copy %arg0[{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?xbf16, strided<[?, 1], offset: ?>> to memref<{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK:           %[[WORD:.*]] = vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT:      vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK:           %[[D:.*]] = nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}] B[{{.*}}, {{.*}}] C[{{.*}}, {{.*}}, {{.*}}, {{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:           llvm.extractvalue %[[D]][3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:      vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK-NOT:     nvgpu.mma.sync
