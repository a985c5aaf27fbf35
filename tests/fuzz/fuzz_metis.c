/* Fuzz target: METIS .graph text through the convert reader, then the CSC
 * build on whatever edges it accepted. */
#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(data, size, cv_parse_metis);
}
