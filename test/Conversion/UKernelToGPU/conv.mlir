// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=A100
// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=mi300x --convert-linalg-to-ukernel=max-candidates=1 --convert-ukernel-to-gpu | FileCheck %s --check-prefix=MI300

// Convolutions run as implicit GEMMs (Conversion/Utils/ConvIndex.h):
// M = N*OH*OW, N = F, K = R*S*C. On the host the filter collapses to a
// matrix and is windowed like B, the image goes whole, the output is
// windowed along F, and the region's first GEMM row, its row count and the
// filter's R and S follow as index operands. Strides and dilations are in
// the kernel's name.

// nhwc, strides 2x3, dilations 1x2: HWCF collapses to (R*S*C) x F.
// A100-LABEL: func.func @conv_nhwc(
// A100-SAME:    %[[I:[^:]+]]: memref<?x?x?x?xf16>, %[[F:[^:]+]]: memref<?x?x?x?xf16>, %[[O:[^:]+]]: memref<?x?x?x?xf32>
// The operand checks also bound the pixels (N*OH*OW) and taps (R*S*C) by
// 2^32, for the kernels' 32-bit index maps.
// A100:         %[[LIMIT:.*]] = arith.constant 4294967296 : index
// A100-NEXT:    arith.cmpi uge, %{{.*}}, %[[LIMIT]] : index
// A100:         %[[LIMIT2:.*]] = arith.constant 4294967296 : index
// A100-NEXT:    arith.cmpi uge, %{{.*}}, %[[LIMIT2]] : index
// A100:         func.call @quilt_rt_report_operand_error(
// A100:         } else {
// A100:         %[[CH_HOST:.*]] = memref.dim %[[I]], %c3{{.*}} : memref<?x?x?x?xf16>
// A100:         %[[R:.*]] = memref.dim %[[F]], %c0
// A100-NEXT:    %{{.*}} = arith.constant 1 : index
// A100-NEXT:    %[[S:.*]] = memref.dim %[[F]], %c1
// A100-NEXT:    %[[FM:.*]] = memref.collapse_shape %[[F]] {{\[}}[0, 1, 2], [3]] : memref<?x?x?x?xf16> into memref<?x?xf16>
// A100:         call @quilt_rt_select(
// A100:         memref.subview %[[FM]][0, 0]
// The image keeps its unit channel stride, for vector runs along C.
// A100:         %[[IMG:.*]] = memref.cast %[[I]] : memref<?x?x?x?xf16> to memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>
// A100:         memref.subview %[[O]][0, 0, 0, 0]
// The image's vector flag (bit 0) needs its alignment and C % 8 == 0, so
// that no run of 8 channels crosses into the next tap.
// A100:         %[[CREM:.*]] = arith.remui %[[CH_HOST]], %c8{{.*}} : index
// A100-NEXT:    %[[CWHOLE:.*]] = arith.cmpi eq, %[[CREM]], %c0{{.*}} : index
// A100-NEXT:    %[[AOK:.*]] = arith.andi %{{.*}}, %[[CWHOLE]] : i1
// A100-NEXT:    %[[OFF:.*]] = arith.constant 0 : i32
// A100-NEXT:    %[[ON:.*]] = arith.constant 1 : i32
// A100-NEXT:    %[[ABIT:.*]] = arith.select %[[AOK]], %[[ON]], %[[OFF]] : i32
// A100-NEXT:    arith.ori %{{.*}}, %[[ABIT]] : i32
// A100:         gpu.launch_func @quilt_nvidia_kernels::@[[K:quilt_mma_sync_f16_.*_f16_f32_conv2d_nhwc_s2x3_d1x2]] blocks in (%{{.*}}, %{{.*}}, %c1{{.*}}) {{.*}} args(%[[IMG]] : {{.*}}, %{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>, %{{.*}} : memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %c0{{.*}} : index, %{{.*}} : index, %[[R]] : index, %[[S]] : index, %{{.*}} : i32)
// The remainder region: the filter matrix's and the output's columns from c0.
// A100:         memref.subview %[[FM]][0, %[[C0:[0-9a-z_]+]]] [
// A100:         memref.subview %[[O]][0, 0, 0, %[[C0]]] [
// A100:         gpu.launch_func @quilt_nvidia_kernels::@[[K]]

// The kernel reads A(m, k) = image[n, oh*2 + r, ow*3 + s*2, c] with
// m = rowOrigin + row = (n*OH + oh)*OW + ow and k = (r*S + s)*C + c, and
// writes C(m, f) to output[n, oh, ow, f].
// A100:       gpu.module @quilt_nvidia_kernels
// A100-LABEL:   gpu.func @quilt_mma_sync_f16_{{.*}}_conv2d_nhwc_s2x3_d1x2(
// A100-SAME:      %[[IMAGE:[^:]+]]: memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>, %[[BM:[^:]+]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[OUT:[^:]+]]: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %[[ROW0:[^:]+]]: index, %[[ROWS:[^:]+]]: index, %[[FR:[^:]+]]: index, %[[FS:[^:]+]]: index, %{{.*}}: i32)
// A100-DAG:       %[[OH:.*]] = memref.dim %[[OUT]], %c1
// A100-DAG:       %[[OW:.*]] = memref.dim %[[OUT]], %c2
// A100-DAG:       %[[CH:.*]] = memref.dim %[[IMAGE]], %c3
// A100-DAG:       %[[K:.*]] = memref.dim %[[BM]], %c0
// The 32-bit divisions below hold for M, K and OH*OW below 2^32; a larger
// problem traps.
// A100:           %[[END:.*]] = arith.addi %[[ROW0]], %[[ROWS]] : index
// A100:           arith.cmpi slt, %[[END]], %c4294967296
// A100:           arith.cmpi slt, %[[K]], %c4294967296
// A100:           scf.if
// A100-NEXT:        llvm.intr.trap
// A100:           scf.if
// A100:             %[[X1:.*]] = arith.index_castui %[[KK:.*]] : index to i32
// A100-NEXT:        %[[Y1:.*]] = arith.index_castui %[[CH]] : index to i32
// A100-NEXT:        %[[Q1:.*]] = arith.remui %[[X1]], %[[Y1]] : i32
// A100-NEXT:        %[[CC:.*]] = arith.index_castui %[[Q1]] : i32 to index
// A100-NEXT:        %[[X2:.*]] = arith.index_castui %[[KK]] : index to i32
// A100-NEXT:        %[[Y2:.*]] = arith.index_castui %[[CH]] : index to i32
// A100-NEXT:        %[[Q2:.*]] = arith.divui %[[X2]], %[[Y2]] : i32
// A100-NEXT:        %[[RS:.*]] = arith.index_castui %[[Q2]] : i32 to index
// A100-NEXT:        %[[X3:.*]] = arith.index_castui %[[RS]] : index to i32
// A100-NEXT:        %[[Y3:.*]] = arith.index_castui %[[FS]] : index to i32
// A100-NEXT:        %[[Q3:.*]] = arith.remui %[[X3]], %[[Y3]] : i32
// A100-NEXT:        %[[SS:.*]] = arith.index_castui %[[Q3]] : i32 to index
// A100-NEXT:        %[[X4:.*]] = arith.index_castui %[[RS]] : index to i32
// A100-NEXT:        %[[Y4:.*]] = arith.index_castui %[[FS]] : index to i32
// A100-NEXT:        %[[Q4:.*]] = arith.divui %[[X4]], %[[Y4]] : i32
// A100-NEXT:        %[[RR:.*]] = arith.index_castui %[[Q4]] : i32 to index
// A100-NEXT:        %[[M:.*]] = arith.addi %[[ROW0]], %{{.*}} : index
// A100-NEXT:        %[[PIX:.*]] = arith.muli %[[OH]], %[[OW]] : index
// A100-NEXT:        %[[X5:.*]] = arith.index_castui %[[M]] : index to i32
// A100-NEXT:        %[[Y5:.*]] = arith.index_castui %[[PIX]] : index to i32
// A100-NEXT:        %[[Q5:.*]] = arith.remui %[[X5]], %[[Y5]] : i32
// A100-NEXT:        %[[Q:.*]] = arith.index_castui %[[Q5]] : i32 to index
// A100-NEXT:        %[[X6:.*]] = arith.index_castui %[[M]] : index to i32
// A100-NEXT:        %[[Y6:.*]] = arith.index_castui %[[PIX]] : index to i32
// A100-NEXT:        %[[Q6:.*]] = arith.divui %[[X6]], %[[Y6]] : i32
// A100-NEXT:        %[[N:.*]] = arith.index_castui %[[Q6]] : i32 to index
// A100-NEXT:        %[[X7:.*]] = arith.index_castui %[[Q]] : index to i32
// A100-NEXT:        %[[Y7:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:        %[[Q7:.*]] = arith.divui %[[X7]], %[[Y7]] : i32
// A100-NEXT:        %[[OHI:.*]] = arith.index_castui %[[Q7]] : i32 to index
// A100-NEXT:        %[[X8:.*]] = arith.index_castui %[[Q]] : index to i32
// A100-NEXT:        %[[Y8:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:        %[[Q8:.*]] = arith.remui %[[X8]], %[[Y8]] : i32
// A100-NEXT:        %[[OWI:.*]] = arith.index_castui %[[Q8]] : i32 to index
// A100-NEXT:        %[[DH:.*]] = arith.constant 1 : index
// A100-NEXT:        %[[RD:.*]] = arith.muli %[[RR]], %[[DH]] : index
// A100-NEXT:        %[[SH:.*]] = arith.constant 2 : index
// A100-NEXT:        %[[OHS:.*]] = arith.muli %[[OHI]], %[[SH]] : index
// A100-NEXT:        %[[H:.*]] = arith.addi %[[OHS]], %[[RD]] : index
// A100-NEXT:        %[[DW:.*]] = arith.constant 2 : index
// A100-NEXT:        %[[SD:.*]] = arith.muli %[[SS]], %[[DW]] : index
// A100-NEXT:        %[[SW:.*]] = arith.constant 3 : index
// A100-NEXT:        %[[OWS:.*]] = arith.muli %[[OWI]], %[[SW]] : index
// A100-NEXT:        %[[W:.*]] = arith.addi %[[OWS]], %[[SD]] : index
// With C a multiple of 8 and the image aligned (the host's vector flag),
// a run of 8 channels of one tap moves with one cp.async; otherwise element
// by element through the same maps.
// (Then the tile position's swizzled column.)
// A100:             nvgpu.device_async_copy %[[IMAGE]][%[[N]], %[[H]], %[[W]], %[[CC]]], %{{.*}}, 8, %{{.*}} {bypassL1} : memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>> to memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>
// A100:             } else {
// A100:               memref.load %[[IMAGE]][
// The filter matrix too (cp.async on sm_80).
// A100:           nvgpu.device_async_copy %[[BM]]
// A100:           nvgpu.mma.sync
// A100:           %[[EM:.*]] = arith.addi %[[ROW0]], %{{.*}} : index
// A100-NEXT:      %[[EP:.*]] = arith.muli %[[OH]], %[[OW]] : index
// A100-NEXT:      %[[X9:.*]] = arith.index_castui %[[EM]] : index to i32
// A100-NEXT:      %[[Y9:.*]] = arith.index_castui %[[EP]] : index to i32
// A100-NEXT:      %[[Q9:.*]] = arith.remui %[[X9]], %[[Y9]] : i32
// A100-NEXT:      %[[EQ:.*]] = arith.index_castui %[[Q9]] : i32 to index
// A100-NEXT:      %[[X10:.*]] = arith.index_castui %[[EM]] : index to i32
// A100-NEXT:      %[[Y10:.*]] = arith.index_castui %[[EP]] : index to i32
// A100-NEXT:      %[[Q10:.*]] = arith.divui %[[X10]], %[[Y10]] : i32
// A100-NEXT:      %[[EN:.*]] = arith.index_castui %[[Q10]] : i32 to index
// A100-NEXT:      %[[X11:.*]] = arith.index_castui %[[EQ]] : index to i32
// A100-NEXT:      %[[Y11:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:      %[[Q11:.*]] = arith.divui %[[X11]], %[[Y11]] : i32
// A100-NEXT:      %[[EOH:.*]] = arith.index_castui %[[Q11]] : i32 to index
// A100-NEXT:      %[[X12:.*]] = arith.index_castui %[[EQ]] : index to i32
// A100-NEXT:      %[[Y12:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:      %[[Q12:.*]] = arith.remui %[[X12]], %[[Y12]] : i32
// A100-NEXT:      %[[EOW:.*]] = arith.index_castui %[[Q12]] : i32 to index
// A100-NEXT:      %[[OLD:.*]] = memref.load %[[OUT]][%[[EN]], %[[EOH]], %[[EOW]], %[[EF:.*]]] :
// A100:           memref.store %{{.*}}, %[[OUT]][%[[EN]], %[[EOH]], %[[EOW]], %[[EF]]] :

// MI300-LABEL: func.func @conv_nhwc(
// MI300:         memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]]
// MI300:         gpu.launch_func @quilt_amdgpu_kernels::@quilt_mfma_{{.*}}_conv2d_nhwc_s2x3_d1x2
// MI300:       gpu.module @quilt_amdgpu_kernels [#rocdl.target<O = 3, chip = "gfx942">]
// MI300-LABEL:   gpu.func @quilt_mfma_{{.*}}_conv2d_nhwc_s2x3_d1x2(
// MI300:           vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?x?x?x?xf16, strided<[?, ?, ?, 1], offset: ?>>, vector<8xf16>
// MI300:           memref.load %arg0[{{.*}}] : memref<?x?x?x?xf16
// MI300:           amdgpu.mfma
// MI300:           memref.store %{{.*}}, %arg2[{{.*}}] : memref<?x?x?x?xf32

func.func @conv_nhwc(%i: memref<?x?x?x?xf16>, %f: memref<?x?x?x?xf16>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 3]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xf16>, memref<?x?x?x?xf16>) outs(%o : memref<?x?x?x?xf32>)
  return
}

// -----

// nchw, strides 1x2, dilations 3x1: FCHW collapses to F x (C*R*S), B
// transposed; the output is windowed along its dimension 1.
// A100-LABEL: func.func @conv_nchw(
// A100-SAME:    %[[I:[^:]+]]: memref<?x?x?x?xf32>, %[[F:[^:]+]]: memref<?x?x?x?xf32>, %[[O:[^:]+]]: memref<?x?x?x?xf32>
// A100:         } else {
// A100:         %[[R:.*]] = memref.dim %[[F]], %c2
// A100-NEXT:    %{{.*}} = arith.constant 3 : index
// A100-NEXT:    %[[S:.*]] = memref.dim %[[F]], %c3
// A100-NEXT:    %[[FM:.*]] = memref.collapse_shape %[[F]] {{\[}}[0], [1, 2, 3]] : memref<?x?x?x?xf32> into memref<?x?xf32>
// A100:         call @quilt_rt_select(
// A100:         gpu.launch_func @quilt_nvidia_kernels::@[[K:quilt_simt_fma_.*_f32_f32_tb_conv2d_nchw_s1x2_d3x1_sa]] blocks in (%{{.*}}, %{{.*}}, %c1{{.*}}) {{.*}} %[[R]] : index, %[[S]] : index, %{{.*}} : i32)
// A100:         memref.subview %[[FM]][%[[C0:[0-9a-z_]+]], 0] [
// A100:         memref.subview %[[O]][0, %[[C0]], 0, 0] [
// A100:         gpu.launch_func @quilt_nvidia_kernels::@[[K]]

// A(m, k) = image[n, c, oh + r*3, ow*2 + s] with k = (c*R + r)*S + s;
// C(m, f) = output[n, f, oh, ow].
// A100-LABEL:   gpu.func @quilt_simt_fma_{{.*}}_tb_conv2d_nchw_s1x2_d3x1_sa(
// A100-SAME:      %[[IMAGE:[^:]+]]: memref<?x?x?x?xf32, {{.*}}>, %[[BM:[^:]+]]: memref<?x?xf32, {{.*}}>, %[[OUT:[^:]+]]: memref<?x?x?x?xf32, {{.*}}>, %[[ROW0:[^:]+]]: index, %[[ROWS:[^:]+]]: index, %[[FR:[^:]+]]: index, %[[FS:[^:]+]]: index, %{{.*}}: i32)
// A100-DAG:       %[[OH:.*]] = memref.dim %[[OUT]], %c2
// A100-DAG:       %[[OW:.*]] = memref.dim %[[OUT]], %c3
// A100-DAG:       %[[K:.*]] = memref.dim %[[BM]], %c1
// A100:           scf.if
// A100:             %[[X1:.*]] = arith.index_castui %[[KK:.*]] : index to i32
// A100-NEXT:        %[[Y1:.*]] = arith.index_castui %[[FS]] : index to i32
// A100-NEXT:        %[[Q1:.*]] = arith.remui %[[X1]], %[[Y1]] : i32
// A100-NEXT:        %[[SS:.*]] = arith.index_castui %[[Q1]] : i32 to index
// A100-NEXT:        %[[X2:.*]] = arith.index_castui %[[KK]] : index to i32
// A100-NEXT:        %[[Y2:.*]] = arith.index_castui %[[FS]] : index to i32
// A100-NEXT:        %[[Q2:.*]] = arith.divui %[[X2]], %[[Y2]] : i32
// A100-NEXT:        %[[CR:.*]] = arith.index_castui %[[Q2]] : i32 to index
// A100-NEXT:        %[[X3:.*]] = arith.index_castui %[[CR]] : index to i32
// A100-NEXT:        %[[Y3:.*]] = arith.index_castui %[[FR]] : index to i32
// A100-NEXT:        %[[Q3:.*]] = arith.remui %[[X3]], %[[Y3]] : i32
// A100-NEXT:        %[[RR:.*]] = arith.index_castui %[[Q3]] : i32 to index
// A100-NEXT:        %[[X4:.*]] = arith.index_castui %[[CR]] : index to i32
// A100-NEXT:        %[[Y4:.*]] = arith.index_castui %[[FR]] : index to i32
// A100-NEXT:        %[[Q4:.*]] = arith.divui %[[X4]], %[[Y4]] : i32
// A100-NEXT:        %[[CC:.*]] = arith.index_castui %[[Q4]] : i32 to index
// A100-NEXT:        %[[M:.*]] = arith.addi %[[ROW0]], %{{.*}} : index
// A100-NEXT:        %[[PIX:.*]] = arith.muli %[[OH]], %[[OW]] : index
// A100-NEXT:        %[[X5:.*]] = arith.index_castui %[[M]] : index to i32
// A100-NEXT:        %[[Y5:.*]] = arith.index_castui %[[PIX]] : index to i32
// A100-NEXT:        %[[Q5:.*]] = arith.remui %[[X5]], %[[Y5]] : i32
// A100-NEXT:        %[[Q:.*]] = arith.index_castui %[[Q5]] : i32 to index
// A100-NEXT:        %[[X6:.*]] = arith.index_castui %[[M]] : index to i32
// A100-NEXT:        %[[Y6:.*]] = arith.index_castui %[[PIX]] : index to i32
// A100-NEXT:        %[[Q6:.*]] = arith.divui %[[X6]], %[[Y6]] : i32
// A100-NEXT:        %[[N:.*]] = arith.index_castui %[[Q6]] : i32 to index
// A100-NEXT:        %[[X7:.*]] = arith.index_castui %[[Q]] : index to i32
// A100-NEXT:        %[[Y7:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:        %[[Q7:.*]] = arith.divui %[[X7]], %[[Y7]] : i32
// A100-NEXT:        %[[OHI:.*]] = arith.index_castui %[[Q7]] : i32 to index
// A100-NEXT:        %[[X8:.*]] = arith.index_castui %[[Q]] : index to i32
// A100-NEXT:        %[[Y8:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:        %[[Q8:.*]] = arith.remui %[[X8]], %[[Y8]] : i32
// A100-NEXT:        %[[OWI:.*]] = arith.index_castui %[[Q8]] : i32 to index
// A100-NEXT:        %[[DH:.*]] = arith.constant 3 : index
// A100-NEXT:        %[[RD:.*]] = arith.muli %[[RR]], %[[DH]] : index
// A100-NEXT:        %[[SH:.*]] = arith.constant 1 : index
// A100-NEXT:        %[[OHS:.*]] = arith.muli %[[OHI]], %[[SH]] : index
// A100-NEXT:        %[[H:.*]] = arith.addi %[[OHS]], %[[RD]] : index
// A100-NEXT:        %[[DW:.*]] = arith.constant 1 : index
// A100-NEXT:        %[[SD:.*]] = arith.muli %[[SS]], %[[DW]] : index
// A100-NEXT:        %[[SW:.*]] = arith.constant 2 : index
// A100-NEXT:        %[[OWS:.*]] = arith.muli %[[OWI]], %[[SW]] : index
// A100-NEXT:        %[[W:.*]] = arith.addi %[[OWS]], %[[SD]] : index
// A100-NEXT:        memref.load %[[IMAGE]][%[[N]], %[[CC]], %[[H]], %[[W]]]
// A100:           vector.fma
// A100:           %[[EM:.*]] = arith.addi %[[ROW0]], %{{.*}} : index
// A100-NEXT:      %[[EP:.*]] = arith.muli %[[OH]], %[[OW]] : index
// A100-NEXT:      %[[X9:.*]] = arith.index_castui %[[EM]] : index to i32
// A100-NEXT:      %[[Y9:.*]] = arith.index_castui %[[EP]] : index to i32
// A100-NEXT:      %[[Q9:.*]] = arith.remui %[[X9]], %[[Y9]] : i32
// A100-NEXT:      %[[EQ:.*]] = arith.index_castui %[[Q9]] : i32 to index
// A100-NEXT:      %[[X10:.*]] = arith.index_castui %[[EM]] : index to i32
// A100-NEXT:      %[[Y10:.*]] = arith.index_castui %[[EP]] : index to i32
// A100-NEXT:      %[[Q10:.*]] = arith.divui %[[X10]], %[[Y10]] : i32
// A100-NEXT:      %[[EN:.*]] = arith.index_castui %[[Q10]] : i32 to index
// A100-NEXT:      %[[X11:.*]] = arith.index_castui %[[EQ]] : index to i32
// A100-NEXT:      %[[Y11:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:      %[[Q11:.*]] = arith.divui %[[X11]], %[[Y11]] : i32
// A100-NEXT:      %[[EOH:.*]] = arith.index_castui %[[Q11]] : i32 to index
// A100-NEXT:      %[[X12:.*]] = arith.index_castui %[[EQ]] : index to i32
// A100-NEXT:      %[[Y12:.*]] = arith.index_castui %[[OW]] : index to i32
// A100-NEXT:      %[[Q12:.*]] = arith.remui %[[X12]], %[[Y12]] : i32
// A100-NEXT:      %[[EOW:.*]] = arith.index_castui %[[Q12]] : i32 to index
// A100-NEXT:      %[[OLD:.*]] = memref.load %[[OUT]][%[[EN]], %[[EF:.*]], %[[EOH]], %[[EOW]]] :
// A100:           memref.store %{{.*}}, %[[OUT]][%[[EN]], %[[EF]], %[[EOH]], %[[EOW]]] :

// MI300-LABEL: func.func @conv_nchw(
// MI300:         memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]]
// MI300:         gpu.launch_func @quilt_amdgpu_kernels::@{{.*}}_conv2d_nchw_s1x2_d3x1_sa
// MI300:       gpu.module @quilt_amdgpu_kernels
// MI300-LABEL:   gpu.func @{{.*}}_conv2d_nchw_s1x2_d3x1_sa(
// MI300:           memref.load %arg0[{{.*}}] : memref<?x?x?x?xf32

func.func @conv_nchw(%i: memref<?x?x?x?xf32>, %f: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[3, 1]> : tensor<2xi64>}
    ins(%i, %f : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}
