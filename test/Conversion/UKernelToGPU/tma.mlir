// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu="native-wgmma=1 tma=1" | FileCheck %s

// With `tma`, a native wgmma candidate of a matmul has two kernels. The
// host asks the runtime to encode tensor maps of the launch's A and B
// windows (f16 = CUtensorMapDataType 6; A M x K in boxes of 128 x 64, B
// K x N in 64 x 64 panels) into two 128-byte, 128-byte aligned buffers
// allocated once at the function's entry, and launches the TMA kernel with
// the buffers when it got both, else the cp.async kernel. The TMA kernel is
// marked to take its maps by value (quilt-gpu-tensor-maps-as-params),
// needs two 8-byte mbarriers per stage more, and is launched with a
// producer warpgroup beside the 128 consumers.
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}

// CHECK:       func.func private @quilt_gpu_tile_map(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-LABEL: func.func @matmul(
// CHECK-DAG:     %[[BUFA:.*]] = llvm.alloca %{{.*}} x !llvm.array<128 x i8> {alignment = 128 : i64}
// CHECK-DAG:     %[[BUFB:.*]] = llvm.alloca %{{.*}} x !llvm.array<128 x i8> {alignment = 128 : i64}
// CHECK:         %[[GOTA:.*]] = func.call @quilt_gpu_tile_map(%[[BUFA]], %{{.*}}, %c6_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c128_i64, %c64_i64{{.*}})
// CHECK:         %[[HAVEA:.*]] = arith.cmpi ne, %[[GOTA]], %c0_i32
// CHECK:         %[[GOTB:.*]] = func.call @quilt_gpu_tile_map(%[[BUFB]], %{{.*}}, %c6_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c64_i64{{.*}})
// CHECK:         %[[HAVEB:.*]] = arith.cmpi ne, %[[GOTB]], %c0_i32
// CHECK:         %[[BOTH:.*]] = arith.andi %[[HAVEA]], %[[HAVEB]]
// CHECK:         scf.if %[[BOTH]] {
// CHECK-NEXT:      %[[T256:.*]] = arith.constant 256 : index
// CHECK:           arith.constant 132160 : i32
// CHECK-NEXT:      gpu.launch_func @quilt_nvidia_kernels::@[[TMA:quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_f16_f32_async_tma]] {{.*}} threads in (%[[T256]], {{.*}} args({{.*}}, %[[BUFA]] : !llvm.ptr, %[[BUFB]] : !llvm.ptr, %{{.*}} : i32)
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T128:.*]] = arith.constant 128 : index
// CHECK:           arith.constant 132096 : i32
// CHECK-NEXT:      gpu.launch_func @quilt_nvidia_kernels::@[[PLAIN:quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_f16_f32_async]] {{.*}} threads in (%[[T128]], {{.*}} args({{.*}} : i32)
// CHECK-NEXT:    }

// The cp.async kernel is the native-wgmma one.
// CHECK:       gpu.func @[[PLAIN]](
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:         nvgpu.device_async_copy
// CHECK:         gpu.return

// The TMA kernel is warp-specialized: 128 consumers and a producer
// warpgroup (threads 128-255), one block an SM (its four stages), where a
// thread's registers at launch leave the consumers all they need: no
// setmaxnreg. Thread 0 initializes the four pairs of mbarriers after the
// tiles (4 x 32 KiB from the 1024-byte boundary), `full` for one arrival
// and `empty` for one per consumer warp, fences them for the TMA unit and
// prefetches both maps; the block's only barrier publishes the mbarriers.
// CHECK:       gpu.func @[[TMA]](%[[A:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[B:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[TMAPA:.*]]: !llvm.ptr, %[[TMAPB:.*]]: !llvm.ptr, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32, ukernel.tensor_maps_as_params}
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         arith.remui %{{.*}}, %c1024
// CHECK:         %[[SLACK:.*]] = arith.remui %{{.*}}, %c1024
// CHECK:         %[[OFF:.*]] = arith.addi %[[SLACK]], %c131072
// CHECK:         %[[BARS:.*]] = arith.addi %{{.*}}, %[[OFF]]
// CHECK:         %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK:         scf.if %[[LEADER]] {
// CHECK-COUNT-4:   nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:             nvvm.mbarrier.init %{{.*}}, %c4_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK-NOT:         nvvm.mbarrier.init
// CHECK:             nvvm.fence.mbarrier.init
// CHECK-NEXT:        nvvm.prefetch tensormap, %[[TMAPA]] : !llvm.ptr
// CHECK-NEXT:        nvvm.prefetch tensormap, %[[TMAPB]] : !llvm.ptr
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK-NOT:     gpu.barrier
// The consumers' step i, with no barrier of the block and nothing issued:
// a wait for buffer i % 4's full barrier in phase (i / 4) % 2, the wgmma
// group, a wait that leaves it in flight and completes step i - 1's; then
// (from step 1) lane 0 of each warp releases buffer (i - 1) % 4 on its
// empty barrier. The accumulators are read after the last group.
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi slt, %[[TID]], %c128
// CHECK-NEXT:    scf.if %[[CONSUMER]] {
// CHECK-NOT:       nvvm.setmaxregister
// CHECK:           %[[ACCS:.*]]:2 = scf.for %[[KK:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK-NOT:         gpu.barrier
// CHECK:             %[[STEP:.*]] = arith.divui %[[KK]], %c64
// CHECK:             %[[CUR:.*]] = arith.remui %[[STEP]], %c4
// CHECK:             %[[ROUND:.*]] = arith.divui %[[STEP]], %c4
// CHECK:             %[[PARITY:.*]] = arith.remui %[[ROUND]], %c2
// CHECK:             arith.muli %[[CUR]], %c16
// CHECK:             %[[PHASE:.*]] = arith.index_castui %[[PARITY]] : index to i32
// CHECK:             nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]], %c10000000_i32
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-8:     nvvm.wgmma.mma_async
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT:         gpu.barrier
// CHECK:             %[[HAVE:.*]] = arith.cmpi sle, %c1{{.*}}, %[[STEP]]
// CHECK:             scf.if %[[HAVE]] {
// CHECK:               %[[REL:.*]] = arith.subi %[[STEP]], %c1
// CHECK:               %[[RBUF:.*]] = arith.remui %[[REL]], %c4
// CHECK:               arith.muli %[[RBUF]], %c16
// CHECK:               %[[EMPTY:.*]] = arith.addi %{{.*}}, %c8
// CHECK:               %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK:               scf.if %[[LANE0]] {
// CHECK:                 %[[EPTR:.*]] = llvm.inttoptr
// CHECK-NEXT:            nvvm.mbarrier.arrive %[[EPTR]] : !llvm.ptr<3>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield
// CHECK:           }
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:       nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT:       nvvm.cp.async.bulk.tensor
// The producer's first thread issues every K step: from step 4 on it waits
// for the buffer's release, phase ((i - 4) / 4) % 2, then expects the
// stage's 32 KiB on its full barrier and copies A's 128 x 64 box at (k0,
// row0, 0) and B's two 64 x 64 panels at (col0, k0, 0) and (col0 + 64, k0,
// 0), 8 KiB apart.
// CHECK:         } else {
// CHECK-NOT:       nvvm.setmaxregister
// CHECK:           %[[ISSUER:.*]] = arith.cmpi eq, %[[TID]], %c128
// CHECK-NEXT:      scf.if %[[ISSUER]] {
// CHECK:             scf.for %[[PK:.*]] = %{{.*}} to %{{.*}} step %c64{{.*}} {
// CHECK:               %[[PSTEP:.*]] = arith.divui %[[PK]], %c64
// CHECK:               %[[PBUF:.*]] = arith.remui %[[PSTEP]], %c4
// CHECK:               %[[REFILL:.*]] = arith.cmpi sle, %c4{{.*}}, %[[PSTEP]]
// CHECK-NEXT:          scf.if %[[REFILL]] {
// CHECK:                 %[[PREV:.*]] = arith.subi %[[PSTEP]], %c4
// CHECK:                 %[[PROUND:.*]] = arith.divui %[[PREV]], %c4
// CHECK:                 arith.remui %[[PROUND]], %c2
// CHECK:                 nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:          }
// CHECK:               nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c32768_i32 : !llvm.ptr<3>, i32
// CHECK:               %[[K0:.*]] = arith.index_cast %[[PK]] : index to i32
// CHECK:               %[[Z:.*]] = arith.index_cast %c0{{.*}} : index to i32
// CHECK:               %[[ROW0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:               %[[DSTA:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:          nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DSTA]], %[[TMAPA]], %[[BAR]], box[%[[K0]], %[[ROW0]], %[[Z]]]
// CHECK:               %[[COL0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMAPB]], %[[BAR]], box[%[[COL0]], %[[K0]], %[[Z]]]
// CHECK:               arith.addi %{{.*}}, %c64
// CHECK:               %[[COL1:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:               arith.addi %{{.*}}, %c8192
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMAPB]], %[[BAR]], box[%[[COL1]], %[[K0]], %[[Z]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return

// -----

// Both operands transposed, bf16 (9): A stored K x M is read in 64 x 64
// panels at (row0 + 64 p, k0), B stored N x K in one 128 x 64 box at
// (k0, col0).
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @transposed(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}

// CHECK-LABEL: func.func @transposed(
// CHECK:         func.call @quilt_gpu_tile_map(%{{.*}}, %c9_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c64_i64, %c64_i64{{.*}})
// CHECK:         func.call @quilt_gpu_tile_map(%{{.*}}, %c9_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c128_i64, %c64_i64{{.*}})
// CHECK:       gpu.func @quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_bf16_f32_ta_tb_async_tma(%{{.*}}, %{{.*}}, %{{.*}}, %[[TMAPA:.*]]: !llvm.ptr, %[[TMAPB:.*]]: !llvm.ptr, %{{.*}}: i32)
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c32768_i32
// CHECK:         %[[K0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[Z:.*]] = arith.index_cast %c0{{.*}} : index to i32
// CHECK:         %[[ROW0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMAPA]], %[[BAR]], box[%[[ROW0]], %[[K0]], %[[Z]]]
// CHECK:         arith.addi %{{.*}}, %c8192
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMAPA]], %[[BAR]], box[%{{.*}}, %[[K0]], %[[Z]]]
// CHECK:         %[[COL0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMAPB]], %[[BAR]], box[%[[K0]], %[[COL0]], %[[Z]]]

// -----

// A batch matmul: the maps are over the rank-3 windows, the copies address
// block z's matrix. A single-stage candidate of 24 KiB fits eight blocks an
// SM, whose registers leave a producer warpgroup none to give: the kernel
// keeps its 128 threads, and their thread 0 issues the loads, step 0
// before the loop; each step waits for its buffer (phase (i / 1) % 2),
// completes its own wgmma group (nothing may stay in flight in the only
// buffer), releases the buffer, and thread 0 issues step i + 1 into it.
#wg = #ukernel.config<tile = 64x128x64, threads = 128, warps = 4x1, thread_tile = 2x32, vector_width = 8, stages = 1, instruction = wgmma, boundary = mask>
func.func @batched(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf16>) {
  ukernel.dispatch batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf16>)
    candidates [#wg]
  return
}

// CHECK-LABEL: func.func @batched(
// CHECK:         memref.extract_strided_metadata %{{.*}} : memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>>
// CHECK:         func.call @quilt_gpu_tile_map(
// CHECK:         dynamic_shared_memory_size %c25616_i32 args(
// CHECK:       gpu.func @quilt_wgmma_64x128x64_t128_w4x1_tt2x32_v8_f16_f16_batch_async_tma({{.*}} kernel attributes {known_block_size = array<i32: 128, 1, 1>, ukernel.tensor_maps_as_params}
// CHECK-NOT:     nvvm.setmaxregister
// CHECK:         %[[BZ:.*]] = gpu.block_id z
// CHECK-COUNT-2: nvvm.mbarrier.init
// CHECK-NOT:     nvvm.mbarrier.init
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c24576_i32
// CHECK:         %[[Z:.*]] = arith.index_cast %[[BZ]] : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}, %[[Z]]]
// CHECK:         scf.for
// CHECK-NOT:       gpu.barrier
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:       nvvm.wgmma.wait.group
// CHECK:           arith.cmpi sle, %c0{{.*}}, %{{.*}}
// CHECK:           nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.mbarrier.arrive.expect_tx
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global

// -----

// A convolution's image is gathered, not a tensor map's matrix: its native
// kernel stages with cp.async and the host asks for no map.
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 3, instruction = wgmma, boundary = mask>
func.func @conv(%in: memref<?x?x?x?xf16>, %f: memref<3x3x64x128xf16>, %out: memref<?x?x?x128xf32>) {
  ukernel.dispatch conv2d_nhwc ins(%in, %f : memref<?x?x?x?xf16>, memref<3x3x64x128xf16>) outs(%out : memref<?x?x?x128xf32>)
    candidates [#wg]
  return
}

// CHECK-LABEL: func.func @conv(
// CHECK-NOT:     quilt_gpu_tile_map
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@quilt_wgmma_128x128x64_t128_w4x1_tt4x32_v8_f16_f32_conv2d_nhwc_s1x1_async
// CHECK-NOT:     _tma

// -----

// Two consumer warpgroups of a 128 x 256 tile (128 accumulators a thread)
// and the producer: 384 threads, one block an SM, 168 registers a thread
// at launch. The producer keeps 40 and the consumers take 232 (CUTLASS's
// figures for the same block), within the block's 384 x 168; the kernel
// asks for its one block an SM, which fixes the 168 (ptxas allocates what
// that leaves once a kernel moves registers). Each stage's `empty` barrier
// waits for the 8 consumer warps.
#wg = #ukernel.config<tile = 128x256x64, threads = 256, warps = 4x2, thread_tile = 4x32, vector_width = 8, stages = 3, instruction = wgmma, boundary = mask>
func.func @moves_registers(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}

// CHECK-LABEL: func.func @moves_registers(
// CHECK:         %[[T384:.*]] = arith.constant 384 : index
// CHECK:         gpu.launch_func @quilt_nvidia_kernels::@[[TMA:quilt_wgmma_128x256x64_t256_w4x2_tt4x32_v8_f16_f32_async_tma]] {{.*}} threads in (%[[T384]],
// CHECK:       gpu.func @[[TMA]]({{.*}} kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32, ukernel.tensor_maps_as_params}
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %c8_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:         gpu.barrier
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi slt, %[[TID]], %c256
// CHECK-NEXT:    scf.if %[[CONSUMER]] {
// CHECK-NEXT:      nvvm.setmaxregister increase 232
// CHECK-NOT:       nvvm.setmaxregister
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           nvvm.setmaxregister decrease 40
// CHECK-NEXT:      %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[ISSUER:.*]] = arith.cmpi eq, %[[TID]], %[[C256]]
// CHECK-NEXT:      scf.if %[[ISSUER]] {
// CHECK-COUNT-3:     nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:             }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return

// -----

// A split-K kernel is warp-specialized too: the producer walks the split's
// range of K (from its first K step), and the fixup's barriers are the 128
// consumers' alone (named barrier 1), which the producer, finished with
// its copies, never reaches.
#wg = #ukernel.config<tile = 64x64x64, threads = 128, warps = 4x1, thread_tile = 2x16, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask, split_k = 2>
func.func @split(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}

// CHECK-LABEL: func.func @split(
// CHECK:       gpu.func @quilt_wgmma_64x64x64_t128_w4x1_tt2x16_v8_f16_f32_sk_async_tma({{.*}} kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32, ukernel.tensor_maps_as_params}
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[KBEGIN:.*]] = arith.muli %{{.*}}, %[[SPLITK:arg[0-9]+]] : index
// CHECK-NEXT:    %[[KLAST:.*]] = arith.addi %[[KBEGIN]], %[[SPLITK]] : index
// CHECK-NEXT:    %[[KEND:.*]] = arith.minsi %{{.*}}, %[[KLAST]] : index
// CHECK:         gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi slt, %[[TID]], %c128
// CHECK-NEXT:    scf.if %[[CONSUMER]] {
// CHECK-NEXT:      nvvm.setmaxregister increase 120
// CHECK:           scf.for %{{.*}} = %[[KBEGIN]] to %[[KEND]] step
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[T128:.*]] = arith.constant 128 : i32
// CHECK-NEXT:      nvvm.barrier id = %[[ONE]] number_of_threads = %[[T128]]
// CHECK:           llvm.atomicrmw add
// CHECK:           nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NOT:       gpu.barrier
// CHECK:           nvvm.setmaxregister decrease 40
// CHECK:           %[[ISSUER:.*]] = arith.cmpi eq, %[[TID]], %c128
// CHECK-NEXT:      scf.if %[[ISSUER]] {
// CHECK:             scf.for %[[PK:.*]] = %[[KBEGIN]] to %[[KEND]] step
// CHECK:               arith.subi %[[PK]], %[[KBEGIN]]
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:     nvvm.barrier
// CHECK:         gpu.return
