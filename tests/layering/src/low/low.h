// A lower library reaching up: what the check must refuse.
#pragma once

#include "high/high.h"
