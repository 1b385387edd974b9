//===- IndexMath.cpp - Index arithmetic shorthands ------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::ukernel;


Value IndexMath::c(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value IndexMath::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value IndexMath::sub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value IndexMath::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value IndexMath::min(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value IndexMath::div(Value x, Value y) {
  return arith::DivUIOp::create(b, loc, x, y);
}
Value IndexMath::rem(Value x, Value y) {
  return arith::RemUIOp::create(b, loc, x, y);
}
Value IndexMath::ceilDiv(Value x, Value y) {
  return arith::CeilDivSIOp::create(b, loc, x, y);
}
Value IndexMath::eq(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}
Value IndexMath::lt(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
}

Value IndexMath::le(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, x, y);
}
