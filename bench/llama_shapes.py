# SPDX-License-Identifier: MIT
"""The tensors of a Llama-shaped checkpoint (names as transformers saves them, bf16 shapes),
for the Python benchmarks in bench/ that make one."""


def llama_shapes(layers, hidden, mlp, vocab):
    """{name: shape} of a Llama with these sizes (k/v as wide as q), in the order written."""
    out = {"model.embed_tokens.weight": (vocab, hidden)}
    for i in range(layers):
        p = f"model.layers.{i}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out[p + f"self_attn.{name}.weight"] = (hidden, hidden)
        out[p + "mlp.gate_proj.weight"] = (mlp, hidden)
        out[p + "mlp.up_proj.weight"] = (mlp, hidden)
        out[p + "mlp.down_proj.weight"] = (hidden, mlp)
        out[p + "input_layernorm.weight"] = (hidden,)
        out[p + "post_attention_layernorm.weight"] = (hidden,)
    out["model.norm.weight"] = (hidden,)
    return out
