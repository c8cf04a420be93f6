// A library that exports NCCL's API but reports NCCL 2.10.3, older than the check accepts: the
// test of hkim-nccl-check's "too old" refusal (exit 4). Only ncclGetVersion is ever called.
extern "C" {
int ncclGetVersion(int* version) {
  *version = 21003;
  return 0;
}
const char* ncclGetErrorString(int) { return "fake"; }
int ncclGetUniqueId(void*) { return 1; }
int ncclCommInitRank(void*, int, ...) { return 1; }
int ncclCommInitAll(void*, int, const int*) { return 1; }
int ncclCommDestroy(void*) { return 1; }
int ncclCommAbort(void*) { return 1; }
int ncclCommGetAsyncError(void*, int*) { return 1; }
int ncclAllReduce(const void*, void*, unsigned long, int, int, void*, void*) { return 1; }
int ncclGroupStart() { return 1; }
int ncclGroupEnd() { return 1; }
}
