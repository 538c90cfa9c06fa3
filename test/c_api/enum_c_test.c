/* SPDX-License-Identifier: MIT */
/* Enum parameters from C carry any int: the library must validate them as integers (loading an
 * out-of-range value as a C++ enum is undefined behaviour, which UBSan reports). Plain C, as the
 * callers are; exit status 0 = pass. */
#include <hipfile/hipfile.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAILED: %s\n", what);
        ++failures;
    }
}

int main(void) {
    const int bad[] = {-1, 12, 99, 77777, 0x7fffffff, -0x7fffffff - 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        size_t sv = 0;
        bool bv = false;
        char text[64];
        check(hipFileGetParameterSizeT((hipFileSizeTConfigParameter_t)bad[i], &sv).err == hipFileInvalidValue,
              "GetParameterSizeT refuses an unknown parameter");
        check(hipFileSetParameterSizeT((hipFileSizeTConfigParameter_t)bad[i], 1).err == hipFileInvalidValue,
              "SetParameterSizeT refuses an unknown parameter");
        check(hipFileGetParameterBool((hipFileBoolConfigParameter_t)bad[i], &bv).err == hipFileInvalidValue,
              "GetParameterBool refuses an unknown parameter");
        check(hipFileSetParameterBool((hipFileBoolConfigParameter_t)bad[i], true).err == hipFileInvalidValue,
              "SetParameterBool refuses an unknown parameter");
        check(hipFileGetParameterString((hipFileStringConfigParameter_t)bad[i], text, sizeof text).err ==
                  hipFileInvalidValue,
              "GetParameterString refuses an unknown parameter");
        check(hipFileSetParameterString((hipFileStringConfigParameter_t)bad[i], "x").err == hipFileInvalidValue,
              "SetParameterString refuses an unknown parameter");
        check(hipFileGetOpErrorString((hipFileOpError_t)(bad[i] + 5000)) != NULL, "GetOpErrorString answers any int");
        hipFileDescr_t d;
        memset(&d, 0, sizeof d);
        d.type = (hipFileFileHandleType_t)bad[i];
        d.handle.fd = 0;
        hipFileHandle_t h = NULL;
        check(hipFileHandleRegister(&h, &d).err == hipFileIONotSupported, "HandleRegister refuses an unknown type");
    }
    hipFileBatchHandle_t b = NULL;
    check(hipFileBatchIOSetUp(&b, 1).err == hipFileSuccess, "BatchIOSetUp");
    check(hipFileDriverOpen().err == hipFileSuccess, "DriverOpen");
    hipFileIOParams_t io;
    memset(&io, 0, sizeof io);
    io.mode = (hipFileBatchMode_t)77777;
    io.opcode = hipFileBatchRead;
    check(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileInvalidValue, "BatchIOSubmit refuses an unknown mode");
    io.mode = hipFileBatch;
    io.opcode = (hipFileOpcode_t)-5;
    check(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileInvalidValue, "BatchIOSubmit refuses an unknown opcode");
    hipFileBatchIODestroy(b);
    check(hipFileDriverClose().err == hipFileSuccess, "DriverClose");
    if (failures == 0) printf("all enum checks passed\n");
    return failures == 0 ? 0 : 1;
}
