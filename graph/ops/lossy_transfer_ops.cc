// _TruncateToUpper16 and _ExpandFromUpper16: the lossy float32 transfer of
// paper 5.5. The partitioner puts the first before a _Send and the second
// after its _Recv when the session asks for lossy transfer between those
// devices, so a float crosses as its upper 16 bits (sign, exponent, 7
// mantissa bits) and arrives with the 16 low mantissa bits zero.
//
// The rule is plain truncation, not rounding (bfloat16's own conversion in
// graph/types.h rounds to nearest even): it is what the paper describes, it
// is cheap, and it maps every bit pattern, NaN payloads included, to a
// defined one. A NaN whose payload lies only in the low 16 bits becomes an
// infinity; that is the rule's consequence and the tests pin it.
//
// The 16-bit wire type is DT_BFLOAT16, whose bits are exactly a float32's
// upper half. Users never build these ops, so there are no builder functions.
#include "graph/op_registry.h"

namespace tact {

REGISTER_OP("_TruncateToUpper16")
    .Input("x: float")
    .Output("y: bfloat16")
    .SetShapeFn(shape_fn::UnchangedShape);

REGISTER_OP("_ExpandFromUpper16")
    .Input("x: bfloat16")
    .Output("y: float")
    .SetShapeFn(shape_fn::UnchangedShape);

}  // namespace tact
