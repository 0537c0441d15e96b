#pragma once
#include "graph/op_builder.h"
