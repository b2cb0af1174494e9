#include "genred/genred_test_support.hpp"
