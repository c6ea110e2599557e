#!/bin/sh
echo "args: $# [$1] [$2]"
