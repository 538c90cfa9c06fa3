# SPDX-License-Identifier: MIT
"""hipfile.Error and hipfile.OpError (kept free of the extension so it can raise them)."""

import enum


class Error(OSError):
    """A failed hipFile operation.

    Attributes:
        errno: the errno of a failed system call (None when the failure is not one).
        op_error: the hipFile op error (an OpError), None for a plain system error.
        hip_error: the HIP runtime error number behind an op error of HipDriverError (0: none).
        filename: the path of the file involved, when there is one.
        message: the whole text: what was attempted (operation, size, offset, path), then why.
    """

    def __init__(self, message, errno=None, op_error=None, hip_error=0, filename=None):
        if errno:
            super().__init__(errno, message)
        else:
            super().__init__(message)
        self.message = message
        self.op_error = _op_error(op_error)
        self.hip_error = hip_error
        if filename is not None:
            self.filename = filename

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.errno, self.op_error, self.hip_error, self.filename))


OpError = None  # set by hipfile/__init__.py from the C header's enumeration


def _op_error(value):
    if value is None or OpError is None:
        return value
    try:
        return OpError(value)
    except ValueError:
        return value


class SafetensorError(Exception):
    """What the safetensors package raises (safetensors.SafetensorError): the base of
    CheckpointError and MissingTensorError, so code that catches it keeps working with
    hipfile.safetensors. hipfile.safetensors also raises it alone where safetensors does (a
    closed file, an unknown framework, an index it cannot slice with)."""


class CheckpointError(SafetensorError, ValueError):
    """A safetensors checkpoint that is malformed, or a request it cannot satisfy.

    Attributes:
        code: what is wrong, as a name: "invalid_json", "offsets_overlap", "size_mismatch", ...
            (the Errc of <hipfile-safetensors/error.hpp>).
        file: the checkpoint file (shard or index) concerned, "" when none.
        tensor: the tensor concerned, "" when the error is about the whole file.
        message: "FILE: tensor 'NAME': WHAT".
    """

    def __init__(self, message, code, file="", tensor=""):
        super().__init__(message)
        self.message, self.code, self.file, self.tensor = message, code, file, tensor

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.code, self.file, self.tensor))


class MissingTensorError(CheckpointError, KeyError):
    """A tensor name asked for is not in the checkpoint (code "no_such_tensor")."""
