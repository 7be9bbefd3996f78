#!/bin/bash -eu
# ClusterFuzzLite runs $SRC/build.sh; the build is OSS-Fuzz's, in one place.
exec bash -eu "$SRC/quietpoll/ci/oss-fuzz/build.sh"
