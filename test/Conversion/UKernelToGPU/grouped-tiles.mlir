// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu | FileCheck %s

// A kernel of whole tiles takes block (x, y) of its ceil(M/TM) x
// ceil(N/TN) grid in launch order, linear = y tilesM + x, and its tile from
// groups of R tile rows walked column after column (grouped
// rasterization), R = quilt::waveFootprintRows: 12 for 128 x 128 tiles of
// one block per SM on an h100's 132 SMs (a wave of 12 rows by 11 columns).
// The index arithmetic is 32-bit through to the tile's first row and
// column (the host checks M < 2^32); a group shorter than R (the last)
// takes min(tilesM - first, R) rows.
#whole = #ukernel.config<tile = 128x128x64, threads = 256, warps = 8x1, thread_tile = 2x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#whole]
  return
}

// On the host, the operand checks bound C's rows by 2^32 for that map
// (QUILT_RT_CHECK_GPU_ROWS, 29), where C has columns (without, nothing is
// launched).
// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    %{{[^:]+}}: memref<?x?xf16>, %{{[^:]+}}: memref<?x?xf16>, %[[C:[^:]+]]: memref<?x?xf32>
// CHECK:         %[[CROWS:.*]] = memref.dim %[[C]], %c0
// CHECK:         %[[CCOLS:.*]] = memref.dim %[[C]], %c1
// CHECK:         %[[NOCOLS:.*]] = arith.cmpi eq, %[[CCOLS]], %{{.*}} : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[WRITTEN:.*]] = arith.select %[[NOCOLS]], %[[ZERO]], %[[CROWS]] : index
// CHECK-NEXT:    %[[LIMIT:.*]] = arith.constant 4294967296 : index
// CHECK-NEXT:    %[[TALL:.*]] = arith.cmpi uge, %[[WRITTEN]], %[[LIMIT]] : index
// CHECK:         %[[CODE:.*]] = arith.constant 29 : i32
// CHECK-NEXT:    arith.select %[[TALL]], %[[CODE]], %{{.*}} : i32
// CHECK:         func.call @quilt_rt_report_operand_error(

// CHECK-LABEL: gpu.func @quilt_wgmma_128x128x64_t256_w8x1_tt2x32_v8_f16_f32(
// CHECK:         %[[X:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[Y:.*]] = gpu.block_id  y
// CHECK-NEXT:    %[[GX:.*]] = gpu.grid_dim  x
// CHECK-NEXT:    %[[TILESM:.*]] = arith.index_castui %[[GX]] : index to i32
// CHECK-NEXT:    %[[GY:.*]] = gpu.grid_dim  y
// CHECK-NEXT:    %[[TILESN:.*]] = arith.index_castui %[[GY]] : index to i32
// CHECK-NEXT:    %[[R:.*]] = arith.constant 12 : i32
// CHECK-NEXT:    %[[X32:.*]] = arith.index_castui %[[X]] : index to i32
// CHECK-NEXT:    %[[Y32:.*]] = arith.index_castui %[[Y]] : index to i32
// CHECK-NEXT:    %[[YM:.*]] = arith.muli %[[Y32]], %[[TILESM]] : i32
// CHECK-NEXT:    %[[LINEAR:.*]] = arith.addi %[[YM]], %[[X32]] : i32
// CHECK-NEXT:    %[[PERGROUP:.*]] = arith.muli %[[R]], %[[TILESN]] : i32
// CHECK-NEXT:    %[[GROUP:.*]] = arith.divui %[[LINEAR]], %[[PERGROUP]] : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[R]] : i32
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[TILESM]], %[[FIRST]] : i32
// CHECK-NEXT:    %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[R]] : i32
// CHECK-NEXT:    %[[BEFORE:.*]] = arith.muli %[[GROUP]], %[[PERGROUP]] : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.subi %[[LINEAR]], %[[BEFORE]] : i32
// CHECK-NEXT:    %[[INROW:.*]] = arith.remui %[[IN]], %[[ROWS]] : i32
// CHECK-NEXT:    %[[ROW32:.*]] = arith.addi %[[FIRST]], %[[INROW]] : i32
// CHECK-NEXT:    %[[COL32:.*]] = arith.divui %[[IN]], %[[ROWS]] : i32
// CHECK-NEXT:    %[[TM:.*]] = arith.constant 128 : i32
// CHECK-NEXT:    %[[ROW0:.*]] = arith.muli %[[ROW32]], %[[TM]] : i32
// CHECK-NEXT:    %{{.*}} = arith.index_castui %[[ROW0]] : i32 to index
// CHECK-NEXT:    %[[TN:.*]] = arith.constant 128 : i32
// CHECK-NEXT:    %[[COL0:.*]] = arith.muli %[[COL32]], %[[TN]] : i32
// CHECK-NEXT:    %{{.*}} = arith.index_castui %[[COL0]] : i32 to index

// -----

// Smaller tiles, more blocks per SM: a larger wave and taller groups
// (64 x 64 tiles, 3 blocks per SM: 396 tiles, 20 columns by 19 rows).
#small = #ukernel.config<tile = 64x64x64, threads = 128, warps = 4x1, thread_tile = 2x16, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @mm_small(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#small]
  return
}

// CHECK-LABEL: gpu.func @quilt_wgmma_64x64x64_t128_w4x1_tt2x16_v8_f16_f32(
// CHECK:         gpu.grid_dim  y
// CHECK-NEXT:    arith.index_castui
// CHECK-NEXT:    arith.constant 19 : i32

// -----

// A stream-K kernel numbers its tiles from its units (stream-k.mlir): no
// groups, no second grid dimension.
#streamed = #ukernel.config<tile = 128x128x64, threads = 256, warps = 8x1, thread_tile = 2x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask, stream_k = 132>
func.func @mm_streamed(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#streamed]
  return
}

// CHECK-LABEL: gpu.func @quilt_wgmma_128x128x64_t256_w8x1_tt2x32_v8_f16_f32_streamk(
// CHECK-NOT:     gpu.grid_dim  y
// CHECK-NOT:     gpu.block_id  y
// CHECK:         gpu.return
