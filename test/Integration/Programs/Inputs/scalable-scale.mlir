// Scales a buffer in place with scalable vectors (vector<[4]xf32>), as
// Buddy Compiler writes kernels for SVE and RVV: vscale x 4 lanes a step,
// the tail masked.
func.func @scale(%a: memref<?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %vscale = vector.vscale
  %step = arith.muli %c4, %vscale : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %splat = vector.broadcast %s : f32 to vector<[4]xf32>
  scf.for %i = %c0 to %n step %step {
    %left = arith.subi %n, %i : index
    %mask = vector.create_mask %left : vector<[4]xi1>
    %v = vector.maskedload %a[%i], %mask, %splat : memref<?xf32>, vector<[4]xi1>, vector<[4]xf32> into vector<[4]xf32>
    %w = arith.mulf %v, %splat : vector<[4]xf32>
    vector.maskedstore %a[%i], %mask, %w : memref<?xf32>, vector<[4]xi1>, vector<[4]xf32>
  }
  return
}
