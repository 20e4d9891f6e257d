#!/usr/bin/env python3
"""Writes small .npy files for the tessera-run tests (no NumPy needed).

  npy.py iota SHAPE DTYPE OUT      0, 1, 2, ... (shape like 4x8, '' for rank 0)
  npy.py raw DESCR SHAPE OUT BYTES a header with any descr/shape and BYTES
                                   bytes of data (for malformed inputs)
  npy.py header-only OUT          a file that stops inside its header
  npy.py compare A B RTOL          exit 1 unless A and B have the same dtype
                                   and shape and |a - b| <= RTOL * (1 + |b|)
"""
import struct
import sys

FORMATS = {"f32": ("<f4", "f"), "f64": ("<f8", "d"), "i32": ("<i4", "i"),
           "i64": ("<i8", "q"), "i8": ("|i1", "b"), "bool": ("|b1", "?"),
           "u8": ("|u1", "B"), "i16": ("<i2", "h")}


def header(descr, shape):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    total = 10 + len(text) + 1
    text += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


def load(path):
    """(descr, shape, values) of a little-endian C-order .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<H", data[8:10])[0]
    meta = eval(data[10:10 + length].decode())
    fmt = {v[0]: v[1] for v in FORMATS.values()}[meta["descr"]]
    count = 1
    for d in meta["shape"]:
        count *= d
    values = struct.unpack("<%d%s" % (count, fmt), data[10 + length:])
    return meta["descr"], tuple(meta["shape"]), values


def parse_shape(text):
    return [int(d) for d in text.split("x")] if text else []


def main(argv):
    if argv[1] == "iota":
        shape = parse_shape(argv[2])
        descr, fmt = FORMATS[argv[3]]
        count = 1
        for d in shape:
            count *= d
        values = [(i % 2 == 1) if fmt == "?" else i for i in range(count)]
        with open(argv[4], "wb") as f:
            f.write(header(descr, shape) + struct.pack("<%d%s" % (count, fmt),
                                                       *values))
    elif argv[1] == "raw":
        with open(argv[4], "wb") as f:
            f.write(header(argv[2], parse_shape(argv[3])) +
                    b"\0" * int(argv[5]))
    elif argv[1] == "header-only":
        with open(argv[2], "wb") as f:
            f.write(header("<f4", [4])[:20])
    elif argv[1] == "compare":
        a, b = load(argv[2]), load(argv[3])
        if a[0] != b[0] or a[1] != b[1]:
            sys.exit("dtype/shape differ: %s vs %s" % (a[:2], b[:2]))
        rtol = float(argv[4])
        for i, (x, y) in enumerate(zip(a[2], b[2])):
            if abs(x - y) > rtol * (1 + abs(y)):
                sys.exit("element %d differs: %r vs %r" % (i, x, y))
        print("equal: %s %s, %d elements" % (a[0], a[1], len(a[2])))
    else:
        sys.exit("unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
