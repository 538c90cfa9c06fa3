# SPDX-License-Identifier: MIT
"""A torch.nn.Module's state as load_model sees it: one Slot per tensor object, under every name
the module's state_dict gives it (tied weights share one Slot), and the way a tensor made for a
meta Slot is put back into the module."""

from dataclasses import dataclass, field


@dataclass
class Slot:
    """One parameter or persistent buffer, reachable as owners[i] under names[i] (several when
    it is tied, e.g. lm_head.weight and model.embed_tokens.weight, or its module is shared)."""

    tensor: object
    is_parameter: bool
    names: list = field(default_factory=list)
    owners: list = field(default_factory=list)  # (module, attribute name) per name

    def assign(self, tensor):
        """Puts tensor in every owner's place, as one Parameter for all of them (so the tie
        survives) with the old one's requires_grad, or as the buffer."""
        import torch

        value = tensor
        if self.is_parameter:
            value = torch.nn.Parameter(tensor, requires_grad=self.tensor.requires_grad)
        for module, attribute in self.owners:
            table = module._parameters if self.is_parameter else module._buffers
            table[attribute] = value
        self.tensor = value


def module_slots(module):
    """The Slots of module's state_dict entries, keyed by each of their names, in state_dict
    order (a tied tensor's Slot under each of its names)."""
    by_id, by_name = {}, {}
    for prefix, owner in module.named_modules(remove_duplicate=False):
        dot = prefix + "." if prefix else ""
        for attribute, tensor, is_parameter in _own_state(owner):
            slot = by_id.get(id(tensor))
            if slot is None:
                slot = by_id[id(tensor)] = Slot(tensor, is_parameter)
            slot.names.append(dot + attribute)
            slot.owners.append((owner, attribute))
            by_name[dot + attribute] = slot
    return by_name


def _own_state(owner):
    """(attribute, tensor, is_parameter) of owner's own parameters and persistent buffers, as
    Module._save_to_state_dict takes them."""
    for attribute, tensor in owner._parameters.items():
        if tensor is not None:
            yield attribute, tensor, True
    for attribute, tensor in owner._buffers.items():
        if tensor is not None and attribute not in owner._non_persistent_buffers_set:
            yield attribute, tensor, False


def meta_buffers_outside_state(module):
    """Names of buffers on the meta device that the state_dict does not hold (non-persistent:
    rotary frequencies, masks): no checkpoint can give them values."""
    names = []
    for prefix, owner in module.named_modules(remove_duplicate=False):
        dot = prefix + "." if prefix else ""
        for attribute in owner._non_persistent_buffers_set:
            tensor = owner._buffers.get(attribute)
            if tensor is not None and tensor.is_meta:
                names.append(dot + attribute)
    return names
