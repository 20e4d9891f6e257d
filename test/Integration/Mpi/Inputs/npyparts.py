#!/usr/bin/env python3
"""Parts of .npy files for the MPI tests (no NumPy needed).

  npyparts.py rows IN START STOP OUT   rows START..STOP of IN (C order)
  npyparts.py fortran SHAPE DTYPE OUT  iota of SHAPE in Fortran order
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Run",
                                "Inputs"))
import npy  # noqa: E402


def main(argv):
    if argv[1] == "rows":
        descr, shape, values = npy.load(argv[2])
        start, stop = int(argv[3]), int(argv[4])
        row = 1
        for d in shape[1:]:
            row *= d
        fmt = {v[0]: v[1] for v in npy.FORMATS.values()}[descr]
        part = values[start * row:stop * row]
        with open(argv[5], "wb") as f:
            f.write(npy.header(descr, [stop - start] + list(shape[1:])) +
                    struct.pack("<%d%s" % (len(part), fmt), *part))
    elif argv[1] == "fortran":
        shape = npy.parse_shape(argv[2])
        descr, fmt = npy.FORMATS[argv[3]]
        count = 1
        for d in shape:
            count *= d
        head = npy.header(descr, shape).replace(b"'fortran_order': False",
                                                 b"'fortran_order': True ")
        with open(argv[4], "wb") as f:
            f.write(head + struct.pack("<%d%s" % (count, fmt), *range(count)))
    else:
        sys.exit("unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
