// RUN: quilt-opt %s -split-input-file -verify-diagnostics --ukernel-attach-target=target=host-avx2 --convert-linalg-to-ukernel=max-candidates=2 --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db"
// RUN: not quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel --ukernel-apply-tuning-db 2>&1 | FileCheck %s --check-prefix=NODB
// RUN: not quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel --ukernel-apply-tuning-db="db=%S/Inputs/missing.db" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel --ukernel-apply-tuning-db="db=%S/Inputs/stale-tuning.db" 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db threads=2" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not quilt-opt %s --ukernel-attach-target=target=host-avx512 --convert-linalg-to-ukernel --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db target-file=%S/Inputs/missing.db" 2>&1 | FileCheck %s --check-prefix=TARGETFILE
// RUN: not quilt-opt %S/Inputs/untargeted-dispatch.mlir --ukernel-apply-tuning-db="db=%S/Inputs/tuned-avx512.db" 2>&1 | FileCheck %s --check-prefix=NOTARGET

// Every diagnostic of ukernel-apply-tuning-db. The database must have been
// tuned for the target the module is compiled for (host-avx2 here).

// NODB: error: ukernel-apply-tuning-db needs a database file (db=)
// NOFILE: error: cannot use the tuning database: {{.*}}missing.db:0: cannot open the tuning database for reading
// STALE: error: cannot use the tuning database: {{.*}}stale-tuning.db:2: field 'version': the file is version 2; this build of Quilt reads version 1 (tune again to rewrite it)
// THREADS: error: cannot use the tuning database: {{.*}}tuned-avx512.db:5: field 'threads': the database was tuned for 1 thread(s), this compilation runs 2
// TARGETFILE: error: cannot read target file: {{.*}}missing.db
// NOTARGET: error: has no target to apply a tuning database for (attach one with ukernel-attach-target)

func.func @another_target(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{tuned-avx512.db:4: field 'target': the database was tuned for host-avx512, this compilation targets host-avx2}}
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
