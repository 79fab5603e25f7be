"""Count BERT-base's parameters with transformers itself: nothing downloaded, nothing allocated."""
import torch
from transformers import BertConfig, BertForMaskedLM, BertModel

config = BertConfig()  # its defaults are bert-base-uncased's sizes

# On the "meta" device tensors have shapes but no storage, so this is instant.
# BertModel.from_pretrained("bert-base-uncased") gives the same counts.
with torch.device("meta"):
    encoder = BertModel(config)
    mlm = BertForMaskedLM(config)


def parameters(module):
    """What people mean by "parameters": a tied tensor counts once."""
    return sum(p.numel() for p in module.parameters())


def state_dict_entries(module):
    """The sum over state_dict keys: a tied tensor counts once per name."""
    return sum(t.numel() for t in module.state_dict().values())


print(f"BertModel: {parameters(encoder):,}")
for name, child in encoder.named_children():
    print(f"  {name}: {parameters(child):,}")
print(f"BertForMaskedLM: {parameters(mlm):,}")
print(f"BertForMaskedLM state_dict: {state_dict_entries(mlm):,}")
