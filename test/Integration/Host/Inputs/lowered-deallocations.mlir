// A program that arrives bufferized, with its deallocations already
// lowered the way upstream's deallocation pipeline lowers them (as Buddy
// Compiler's decode programs do): main frees the base buffer of a view
// under an ownership flag and its other buffers directly. Quilt takes over
// the product and keeps the program's own deallocations.
func.func private @printMemrefF32(memref<*xf32>)

func.func @product(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %zero = arith.constant 0.0 : f32
  %owned = arith.constant true
  %a = memref.alloc(%c2, %c5) : memref<?x?xf32>
  %b = memref.alloc(%c5, %c3) : memref<?x?xf32>
  %c = memref.alloc(%c2, %c3) : memref<?x?xf32>
  linalg.fill ins(%two : f32) outs(%a : memref<?x?xf32>)
  linalg.fill ins(%three : f32) outs(%b : memref<?x?xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  call @product(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %u = memref.cast %c : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a : memref<?x?xf32> -> memref<f32>, index, index, index, index, index
  scf.if %owned {
    memref.dealloc %base : memref<f32>
  }
  memref.dealloc %b : memref<?x?xf32>
  memref.dealloc %c : memref<?x?xf32>
  return
}
