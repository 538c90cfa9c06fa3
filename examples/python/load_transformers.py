#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Hugging Face causal LM (Llama and its kin) built empty from its folder's config.json and
filled by hipfile.torch.load_model straight from the folder's safetensors into GPU memory: no
random initialization, no host copy of the weights. --check also loads it with
from_pretrained and compares the logits of one prompt.

usage: load_transformers.py MODEL_DIR [--device cuda:0] [--dtype bfloat16] [--check]
Needs transformers and accelerate (not dependencies of hipfile).
"""

import argparse
import contextlib
import sys
import time

import torch
import transformers
from accelerate import init_empty_weights
from transformers import AutoConfig, AutoModelForCausalLM

import hipfile.torch


@contextlib.contextmanager
def default_dtype(dtype):
    """Modules made inside get parameters of dtype (the rotary frequencies stay float32: the
    models compute them as float explicitly, as from_pretrained leaves them)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def config_dtype(config, override):
    """The dtype to build in: --dtype, else config.json's (torch_dtype until transformers 5,
    dtype since), else bfloat16."""
    name = override or getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or "bfloat16"
    return name if isinstance(name, torch.dtype) else getattr(torch, str(name).replace("torch.", ""))


def build_and_fill(model_dir, device, dtype_name):
    config = AutoConfig.from_pretrained(model_dir)
    dtype = config_dtype(config, dtype_name)
    # init_empty_weights puts parameters on the meta device and keeps buffers real: the
    # rotary inv_freq is computed, not stored, so no checkpoint could fill it.
    with init_empty_weights(), default_dtype(dtype):
        model = AutoModelForCausalLM.from_config(config)
    started = time.perf_counter()
    result = hipfile.torch.load_model(model, model_dir, device=device, progress=True)
    seconds = time.perf_counter() - started
    model.to(device)  # the buffers; the parameters are there already
    model.eval()
    s = result.stats
    print(f"hipfile: {s['bytes'] / 1e9:.2f} GB in {seconds:.2f} s ({s['gb_per_s']:.2f} GB/s), "
          f"{result}", file=sys.stderr)
    return model, dtype


def reference(model_dir, device, dtype):
    """The same model through from_pretrained (its dtype argument was torch_dtype before 5)."""
    key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    return AutoModelForCausalLM.from_pretrained(model_dir, **{key: dtype}).to(device).eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dtype", default=None, help="default: config.json's")
    parser.add_argument("--check", action="store_true", help="compare logits with from_pretrained's")
    args = parser.parse_args()
    model, dtype = build_and_fill(args.model_dir, args.device, args.dtype)
    if not args.check:
        return 0
    ids = torch.arange(1, 33, device=args.device).unsqueeze(0) % model.config.vocab_size
    with torch.no_grad():
        ours = model(ids).logits
        del model
        theirs = reference(args.model_dir, args.device, dtype)(ids).logits
    same = torch.equal(ours, theirs)
    print(f"logits {'identical' if same else 'differ'} (max |difference| "
          f"{(ours.float() - theirs.float()).abs().max().item():.3g})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
