// RUN: quilt-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the ukernel attributes' verifiers and parsers.

// Empty name.
// expected-error @below {{target name must not be empty}}
module attributes {ukernel.target = #ukernel.target<name = "", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// No compute units.
// expected-error @below {{compute_units must be positive, got 0}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 0, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// Warp size not a power of two.
// expected-error @below {{warp_size must be a positive power of two, got 48}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 48, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// Fewer threads per block than a warp.
// expected-error @below {{max_threads_per_block (16) must be at least the warp size (32)}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 16, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// Negative resource.
// expected-error @below {{shared_mem_per_cu must not be negative, got -1}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = -1, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// No bandwidth.
// expected-error @below {{mem_bandwidth_gbs must be positive, got 0}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 0.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// No clock.
// expected-error @below {{clock_ghz must be positive, got -1}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = -1.0, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// GPU without shared memory.
// expected-error @below {{a nvidia target needs shared_mem_per_block}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// A GPU with warps Quilt's kernels are not written for (candidate
// enumeration divides by the lanes).
// expected-error @below {{a nvidia target has warp_size 32, got 2}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 2, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// expected-error @below {{an amd target has warp_size 32 or 64, got 16}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = amd, chip = "gfx942", compute_units = 108, warp_size = 16, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// CPU with warps.
// expected-error @below {{a cpu target has warp_size 1, got 32}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = cpu, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// CPU without vectors.
// expected-error @below {{a cpu target needs vector_bits, a positive multiple of 32}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = cpu, chip = "sm_80", compute_units = 108, warp_size = 1, sub_partitions = 4, max_threads_per_block = 1, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// Negative on-chip bandwidth.
// expected-error @below {{onchip_bytes_per_clock must not be negative}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, max_threads_per_block = 1024, shared_mem_per_block = 166912, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, onchip_bytes_per_clock = -1.0, peak_tflops = {simt_fma = 19.5}>} {}

// -----

// Negative f64 peak.
// expected-error @below {{f64_tflops must not be negative}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, max_threads_per_block = 1024, shared_mem_per_block = 166912, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}, f64_tflops = -2.0>} {}

// -----

// Negative L2 rate.
// expected-error @below {{l2_bytes_per_clock must not be negative}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, max_threads_per_block = 1024, shared_mem_per_block = 166912, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 19.5}, l2_bytes_per_clock = -5120.0>} {}

// -----

// An L2 rate on a CPU, whose kernels write no partial sums there.
// expected-error @below {{l2_bytes_per_clock is a GPU figure}}
module attributes {ukernel.target = #ukernel.target<name = "c", vendor = cpu, chip = "x86-64-v4", compute_units = 2, warp_size = 1, max_threads_per_block = 1, mem_bandwidth_gbs = 100.0, clock_ghz = 2.0, peak_tflops = {cpu_fma = 0.1}, vector_bits = 512, l2_bytes_per_clock = 64.0>} {}

// -----

// Peak listed twice.
// expected-error @below {{peak_tflops lists 'simt_fma' twice}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 1.0, simt_fma = 2.0}>} {}

// -----

// Negative peak.
// expected-error @below {{peak_tflops of 'wgmma' must not be negative}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {simt_fma = 1.0, wgmma = -2.0}>} {}

// -----

// No positive peak.
// expected-error @below {{peak_tflops must give a positive peak for at least one instruction}}
module attributes {ukernel.target = #ukernel.target<name = "t", vendor = nvidia, chip = "sm_80", compute_units = 108, warp_size = 32, sub_partitions = 4, max_threads_per_block = 1024, max_threads_per_cu = 2048, max_blocks_per_cu = 32, registers_per_block = 65536, registers_per_cu = 65536, max_registers_per_thread = 255, shared_mem_per_block = 166912, shared_mem_per_cu = 167936, l2_bytes = 41943040, mem_bandwidth_gbs = 2039.0, clock_ghz = 1.41, peak_tflops = {}>} {}

// -----

// Tile with two sizes.
// expected-error @below {{tile must have 3 sizes (MxNxK), got 2}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// Warps with three sizes.
// expected-error @below {{warps must have 2 sizes (MxN), got 3}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x2x2, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// Thread tile with one size.
// expected-error @below {{thread_tile must have 2 sizes (MxN), got 1}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 16, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// The target attribute must hold a target.
// expected-error @below {{'ukernel.target' must be a #ukernel.target attribute, got "h100"}}
module attributes {ukernel.target = "h100"} {}

// -----

// Unknown dialect attribute.
// expected-error @below {{unknown ukernel attribute 'ukernel.tile' (the dialect defines 'ukernel.target' and 'ukernel.tensor_maps_as_params')}}
module attributes {ukernel.tile = 1} {}

// -----

// A kernel that takes its tensor maps by value says so with a unit.
// expected-error @below {{'ukernel.tensor_maps_as_params' must be a unit attribute, got true}}
func.func private @f() attributes {ukernel.tensor_maps_as_params = true}

// -----

// expected-error @below {{'ukernel.tensor_maps_as_params' must be on a function}}
module attributes {ukernel.tensor_maps_as_params} {}

// -----

// Missing parameter in the config syntax.
// expected-error @below {{expected 'threads'}}
func.func private @f() attributes {c = #ukernel.config<tile = 1x1x1, warps = 1x1>}

// -----

// Dynamic sizes are not shapes.
// expected-error @below {{expected static shape}}
// expected-error @below {{failed to parse UKernel_ConfigAttr parameter 'tile'}}
func.func private @f() attributes {c = #ukernel.config<tile = ?x1x1, threads = 1, warps = 1x1, thread_tile = 1x1, vector_width = 1, stages = 1, instruction = simt_fma, boundary = mask>}

// -----

// Unknown instruction.
// expected-error @below {{expected ::mlir::ukernel::InstructionKind to be one of: simt_fma, mma_sync_f16, mma_sync_tf32, wgmma, mfma_32x32x8, mfma_16x16x16, wmma_16x16x16, cpu_fma}}
// expected-error @below {{failed to parse UKernel_ConfigAttr parameter 'instruction'}}
func.func private @f() attributes {c = #ukernel.config<tile = 1x1x1, threads = 1, warps = 1x1, thread_tile = 1x1, vector_width = 1, stages = 1, instruction = dp4a, boundary = mask>}

// -----

// Tile not a multiple of the instruction shape.
// expected-error @below {{tile M (100) is not a multiple of the instruction's M (16) for mma_sync_f16}}
func.func private @f() attributes {c = #ukernel.config<tile = 100x64x32, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = mma_sync_f16, boundary = mask>}

// -----

// Per-thread tiles that do not cover the tile.
// expected-error @below {{per-thread tiles (256 threads x 4x4) cover 4096 elements but the block tile 128x64 has 8192}}
func.func private @f() attributes {c = #ukernel.config<tile = 128x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// Vector width not a power of two.
// expected-error @below {{vector width (3) must be a power of two}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 3, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// Too many stages.
// expected-error @below {{stages (9) exceeds the maximum pipeline depth (8)}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 9, instruction = simt_fma, boundary = mask>}

// -----

// A stream-K block count below zero.
// expected-error @below {{stream-K must be 0 (off) or the number of blocks that share the tiles (got -1)}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, stream_k = -1>}

// -----

// Split-K and stream-K together.
// expected-error @below {{a configuration splits K (split-K 2) or streams it (stream-K 132), not both}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 2, stream_k = 132>}

// -----

// A misspelled tile-sharing key.
// expected-error @below {{expected 'split_k' or 'stream_k', got 'streamk'}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, streamk = 132>}

// -----

// Zero threads.
// expected-error @below {{threads must be positive (got 0)}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 0, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>}

// -----

// Warp tile not a multiple of the instruction's.
// expected-error @below {{warp tile N (12) is not a multiple of the instruction's N (8) for mma_sync_f16}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x48x16, threads = 256, warps = 2x4, thread_tile = 4x3, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>}

// -----

// CPU kernel with threads.
// expected-error @below {{a CPU micro-kernel runs one thread per core: threads must be 1 (got 256)}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x8, vector_width = 8, stages = 2, instruction = cpu_fma, boundary = mask>}

// -----

// CPU kernel with stream-K.
// expected-error @below {{stream-K schedules GPU blocks: a CPU micro-kernel's stream-K must be 0 (got 2)}}
func.func private @f() attributes {c = #ukernel.config<tile = 64x64x8, threads = 1, warps = 1x1, thread_tile = 4x8, vector_width = 8, stages = 2, instruction = cpu_fma, boundary = mask, stream_k = 2>}

// -----

// Calibration efficiencies are fractions.
// expected-error @below {{compute_efficiency must be in (0, 1], got 1.5}}
func.func private @f() attributes {c = #ukernel.calibration<compute_efficiency = 1.5, memory_efficiency = 0.8, launch_overhead_us = 4.0, tile_overhead_us = 0.5>}

// -----

// Calibration overheads are times.
// expected-error @below {{tile_overhead_us must not be negative, got -0.5}}
func.func private @f() attributes {c = #ukernel.calibration<compute_efficiency = 0.5, memory_efficiency = 0.8, launch_overhead_us = 4.0, tile_overhead_us = -0.5>}

// -----

// A tuned region's candidate index is not negative.
// expected-error @below {{candidate must be a non-negative index, got -1}}
module attributes {test.tuned = #ukernel.tuned<candidate = -1, lower = 1x1x1x1, upper = 1x8x8x8, source = "t.db:5">} {}

// -----

// A tuned region bounds b, m, n and k.
// expected-error @below {{lower and upper must have 4 sizes (BxMxNxK), got 3 and 4}}
module attributes {test.tuned = #ukernel.tuned<candidate = 0, lower = 1x1x1, upper = 1x8x8x8, source = "t.db:5">} {}

// -----

// A tuned region's bounds are ordered.
// expected-error @below {{bounds of n must satisfy 0 <= lower <= upper, got 9..8}}
module attributes {test.tuned = #ukernel.tuned<candidate = 0, lower = 1x1x9x1, upper = 1x8x8x8, source = "t.db:5">} {}
