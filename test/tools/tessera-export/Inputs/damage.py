#!/usr/bin/env python3
"""Writes damaged copies of an artifact for the reader's tests.

  damage.py IN OUT_PREFIX

writes OUT_PREFIX.<what>.tsx for: empty (zero bytes), short (cut inside the
header), cut (the payload's last bytes missing), long (bytes after the
payload), magic (wrong magic), header (a flipped byte in the header's
Tessera version), payload (a flipped byte in the payload), text (a text
file named .tsx), newer (format version 2, header checksum not fixed).
"""

import struct
import sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()


def write(what, content):
    with open("%s.%s.tsx" % (out, what), "wb") as f:
        f.write(content)


def flip(offset):
    d = bytearray(data)
    d[offset] ^= 0x01
    return bytes(d)


write("empty", b"")
write("short", data[:40])
write("cut", data[:-10])
write("long", data + b"\0\0\0")
write("magic", b"\x89TSY" + data[4:])
write("header", flip(30))
write("payload", flip(len(data) - 20))
write("payload-first", flip(80))
write("text", b"func.func @f() { return }\n")
write("newer", data[:8] + struct.pack("<I", 2) + data[12:])
