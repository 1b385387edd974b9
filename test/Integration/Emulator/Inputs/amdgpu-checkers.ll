; Kernels that each break one rule the AMDGCN emulator checks, and one that
; breaks none; amdgpu-checkers.test builds them with llc and ld.lld and
; launches them through the HIP API (hip-launch.c). Every kernel takes a
; buffer of %n floats.
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [64 x float] poison, align 4
@ring = internal addrspace(3) global [128 x float] poison, align 4

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
declare void @llvm.trap()

; p[i] = i for i < n: no report.
define amdgpu_kernel void @in_bounds(ptr addrspace(1) %p, i32 %n) {
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %inside = icmp ult i32 %i, %n
  br i1 %inside, label %store, label %done
store:
  %f = uitofp i32 %i to float
  %q = getelementptr float, ptr addrspace(1) %p, i32 %i
  store float %f, ptr addrspace(1) %q
  br label %done
done:
  ret void
}

; p[n + i]: past the end of the allocation.
define amdgpu_kernel void @store_past_end(ptr addrspace(1) %p, i32 %n) {
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %j = add i32 %i, %n
  %q = getelementptr float, ptr addrspace(1) %p, i32 %j
  store float 1.0, ptr addrspace(1) %q
  ret void
}

; tile[n + i] of a 64-float LDS array.
define amdgpu_kernel void @lds_past_end(ptr addrspace(1) %p, i32 %n) {
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %j = add i32 %i, %n
  %t = getelementptr [64 x float], ptr addrspace(3) @tile, i32 0, i32 %j
  store volatile float 1.0, ptr addrspace(3) %t
  %v = load volatile float, ptr addrspace(3) %t
  %q = getelementptr float, ptr addrspace(1) %p, i32 %i
  store float %v, ptr addrspace(1) %q
  ret void
}

; Each work-item writes ring[i] and reads its neighbour's slot: with more
; than one wave, the last lane's read races with the next wave's write
; unless a barrier is between (lds_synced has it, lds_race does not).
define amdgpu_kernel void @lds_race(ptr addrspace(1) %p, i32 %n) {
  call void @exchange(ptr addrspace(1) %p, i1 false)
  ret void
}

define amdgpu_kernel void @lds_synced(ptr addrspace(1) %p, i32 %n) {
  call void @exchange(ptr addrspace(1) %p, i1 true)
  ret void
}

define internal void @exchange(ptr addrspace(1) %p, i1 %sync) alwaysinline {
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %slot = and i32 %i, 127
  %t = getelementptr [128 x float], ptr addrspace(3) @ring, i32 0, i32 %slot
  %f = uitofp i32 %i to float
  store volatile float %f, ptr addrspace(3) %t
  br i1 %sync, label %barrier, label %read
barrier:
  call void @llvm.amdgcn.s.barrier()
  br label %read
read:
  %k = add i32 %i, 1
  %next = and i32 %k, 127
  %u = getelementptr [128 x float], ptr addrspace(3) @ring, i32 0, i32 %next
  %v = load volatile float, ptr addrspace(3) %u
  %q = getelementptr float, ptr addrspace(1) %p, i32 %slot
  store float %v, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @traps(ptr addrspace(1) %p, i32 %n) {
  call void @llvm.trap()
  unreachable
}

; Never ends: the instruction limit reports a hang.
define amdgpu_kernel void @spins(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %v = load volatile float, ptr addrspace(1) %p
  %stop = fcmp oeq float %v, 12345.0
  br i1 %stop, label %done, label %loop
done:
  ret void
}
