; A kernel whose descriptor asks for f32 denormals flushed (LLVM's
; "denormal-fp-math-f32"="preserve-sign"): the AMDGCN emulator computes
; with IEEE round to nearest and denormals kept, so it refuses the module
; (amdgpu-checkers.test).
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @flushes(ptr addrspace(1) %p, i32 %n) #0 {
  %x = load float, ptr addrspace(1) %p
  %y = fmul float %x, 0x3800000000000000
  store float %y, ptr addrspace(1) %p
  ret void
}

attributes #0 = { "denormal-fp-math-f32"="preserve-sign,preserve-sign" }
