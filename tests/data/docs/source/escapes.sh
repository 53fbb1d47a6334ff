#!/bin/sh
# Install from https://example.com/install.sh
curl -fsSL https://get.example.com/ | sh   # pipe it
echo "Docs at https://docs.example.com/sh\"" ${#var} $# http://code.example/#frag
