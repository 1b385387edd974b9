// RUN: quilt-opt %s -verify-diagnostics --convert-ukernel-to-host=threads=-2

// expected-error @below {{convert-ukernel-to-host: threads must be 1 (sequential), N > 1 or 0 (the OpenMP default), got -2}}
module {
}
