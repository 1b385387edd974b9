// y = a * x + y on the GPU through the mgpu* ABI, as compiled Quilt code
// calls it: a PTX module loaded (JIT) in a global constructor, async
// allocation and copies on a stream, a launch whose grid does not divide
// the size, an empty launch, and the runtime's status read at the end.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index)
        kernel {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %xi = memref.load %x[%i] : memref<?xf32>
        %yi = memref.load %y[%i] : memref<?xf32>
        %axi = arith.mulf %a, %xi : f32
        %sum = arith.addf %axi, %yi : f32
        memref.store %sum, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func private @quilt_gpu_status() -> i32
  func.func private @printI64(i64)
  func.func private @printNewline()

  func.func @print(%value: i64) {
    call @printI64(%value) : (i64) -> ()
    call @printNewline() : () -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 1000 : index
    %grid = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %hx = memref.alloc(%n) : memref<?xf32>
    %hy = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i64
      %fi = arith.sitofp %ii : i64 to f32
      memref.store %fi, %hx[%i] : memref<?xf32>
      memref.store %one, %hy[%i] : memref<?xf32>
    }

    %t0 = gpu.wait async
    %dx, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %dy, %t2 = gpu.alloc async [%t1] (%n) : memref<?xf32>
    %t3 = gpu.memcpy async [%t2] %dx, %hx : memref<?xf32>, memref<?xf32>
    %t4 = gpu.memcpy async [%t3] %dy, %hy : memref<?xf32>, memref<?xf32>
    %t5 = gpu.launch_func async [%t4] @kernels::@axpy
        blocks in (%grid, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dx : memref<?xf32>, %dy : memref<?xf32>, %two : f32, %n : index)
    // An empty dynamic shape: a grid of zero blocks runs nothing.
    %t6 = gpu.launch_func async [%t5] @kernels::@axpy
        blocks in (%c0, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dx : memref<?xf32>, %dy : memref<?xf32>, %two : f32, %c0 : index)
    %t7 = gpu.memcpy async [%t6] %hy, %dy : memref<?xf32>, memref<?xf32>
    %t8 = gpu.dealloc async [%t7] %dx : memref<?xf32>
    %t9 = gpu.dealloc async [%t8] %dy : memref<?xf32>
    gpu.wait [%t9]

    // y[i] = 2 i + 1: y[0], y[999] and the sum (exact in f32).
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %yi = memref.load %hy[%i] : memref<?xf32>
      %next = arith.addf %acc, %yi : f32
      scf.yield %next : f32
    }
    %last = arith.subi %n, %c1 : index
    %first = memref.load %hy[%c0] : memref<?xf32>
    %final = memref.load %hy[%last] : memref<?xf32>
    %a = arith.fptosi %first : f32 to i64
    %b = arith.fptosi %final : f32 to i64
    %s = arith.fptosi %sum : f32 to i64
    call @print(%a) : (i64) -> ()
    call @print(%b) : (i64) -> ()
    call @print(%s) : (i64) -> ()
    %status = call @quilt_gpu_status() : () -> i32
    %status64 = arith.extsi %status : i32 to i64
    call @print(%status64) : (i64) -> ()
    memref.dealloc %hx : memref<?xf32>
    memref.dealloc %hy : memref<?xf32>
    return
  }
}
