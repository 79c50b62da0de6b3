"""Reads the binary chunked format (.snap, docs/formats.md) into a SciPy CSR matrix.

The Python peers (scikit-learn, IBM snapml) take SciPy matrices; reading the .snap
file that snap-convert wrote gives them exactly the rows snap-train sees, far faster
than parsing svmlight text. Checksums are not verified here (snap-convert just
wrote the file); the layout checks that matter for indexing are.
"""
import numpy as np
import scipy.sparse as sp

MAGIC = b"SNAPBIN\0"
HEADER = np.dtype([("magic", "S8"), ("version", "<u4"), ("flags", "<u4"), ("n_rows", "<i8"),
                   ("n_features", "<i8"), ("nnz", "<i8"), ("n_chunks", "<i8"), ("file_size", "<u8"),
                   ("checksum", "<u8")])
ENTRY = np.dtype([("offset", "<u8"), ("n_rows", "<i8"), ("nnz", "<i8"), ("first_row", "<i8"),
                  ("checksum", "<u8")])


def _pad8(n_bytes):
    return (n_bytes + 7) // 8 * 8


def read_snap(path):
    """Returns (X: csr_matrix float32, y: float64 labels) of a .snap file."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    header = raw[:HEADER.itemsize].view(HEADER)[0]
    if bytes(raw[:8]) != MAGIC or header["version"] != 1:
        raise ValueError(f"{path}: not a version-1 snapml binary file")
    if header["flags"] not in (0, 1):
        raise ValueError(f"{path}: unknown flags {header['flags']}")
    weighted = bool(header["flags"] & 1)
    table_end = 64 + ENTRY.itemsize * int(header["n_chunks"])
    table = raw[64:table_end].view(ENTRY)
    n_rows, nnz = int(header["n_rows"]), int(header["nnz"])
    indptr = np.empty(n_rows + 1, dtype=np.int64)
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=np.float32)
    labels = np.empty(n_rows, dtype=np.float64)
    indptr[0] = 0
    row = entry = 0
    for chunk in table:
        n, z, at = int(chunk["n_rows"]), int(chunk["nnz"]), int(chunk["offset"])
        offsets = raw[at:at + 8 * (n + 1)].view("<i8")
        at += 8 * (n + 1)
        labels[row:row + n] = raw[at:at + 8 * n].view("<f8")
        at += 8 * n
        if weighted:
            at += _pad8(4 * n)
        indices[entry:entry + z] = raw[at:at + 4 * z].view("<i4")
        at += _pad8(4 * z)
        data[entry:entry + z] = raw[at:at + 4 * z].view("<f4")
        if offsets[0] != 0 or offsets[-1] != z:
            raise ValueError(f"{path}: chunk at row {row} has inconsistent row offsets")
        indptr[row + 1:row + n + 1] = offsets[1:] + entry
        row, entry = row + n, entry + z
    if row != n_rows or entry != nnz:
        raise ValueError(f"{path}: chunks hold {row} rows / {entry} non-zeros, header says {n_rows} / {nnz}")
    X = sp.csr_matrix((data, indices, indptr), shape=(n_rows, int(header["n_features"])))
    return X, labels
