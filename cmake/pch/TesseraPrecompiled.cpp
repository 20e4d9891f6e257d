// The translation unit that builds cmake/pch/TesseraPrecompiled.h.
