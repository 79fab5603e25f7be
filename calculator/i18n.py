"""Every label the views, the CLI and the page print, in English and Chinese.

Labels live here (not in templates or JavaScript) so that the site, the CLI
and the in-page calculator use the same words, and a test can check that
each key exists in both languages.
"""
from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    # component groups (calculator.model.GROUPS)
    "embeddings": {"en": "Embeddings", "zh": "嵌入层"},
    "attention_qkv": {"en": "Attention Q, K, V", "zh": "注意力 Q、K、V"},
    "attention_output": {"en": "Attention output", "zh": "注意力输出投影"},
    "feed_forward": {"en": "Feed-forward", "zh": "前馈网络"},
    "layer_norm": {"en": "LayerNorm", "zh": "层归一化"},
    "relative_position": {"en": "Relative positions", "zh": "相对位置"},
    "pooler": {"en": "Pooler", "zh": "池化层"},
    "head": {"en": "Task head", "zh": "任务头"},
    # sections of the hierarchical breakdown
    "encoder": {"en": "Encoder layers", "zh": "编码器层"},
    "decoder": {"en": "Decoder layers", "zh": "解码器层"},
    # report words
    "total": {"en": "Total parameters", "zh": "总参数量"},
    "trainable": {"en": "Trainable", "zh": "可训练参数量"},
    "non_trainable": {"en": "Non-trainable", "zh": "不可训练参数量"},
    "state_dict_total": {"en": "Summed over state_dict entries", "zh": "state_dict 中的元素总数"},
    "tensor": {"en": "Tensor", "zh": "张量"},
    # keras-bert's entries are Keras weights (model.weights), not state_dict tensors.
    "weight": {"en": "Weight", "zh": "权重"},
    "shape": {"en": "Shape", "zh": "形状"},
    "count": {"en": "Parameters", "zh": "参数量"},
    "share": {"en": "Share", "zh": "占比"},
    "group": {"en": "Component", "zh": "组件"},
    "layer": {"en": "Layer", "zh": "层"},
    "per_layer": {"en": "Per layer", "zh": "每层"},
    "layer_n": {"en": "Layer {n}", "zh": "第 {n} 层"},
    "layer_group_n": {"en": "Shared layer group {n}", "zh": "共享层组 {n}"},
    "encoder_layer_n": {"en": "Encoder layer {n}", "zh": "编码器第 {n} 层"},
    "decoder_layer_n": {"en": "Decoder layer {n}", "zh": "解码器第 {n} 层"},
    "times_layers": {"en": "{per} × {n} layers = {total}", "zh": "{per} × {n} 层 = {total}"},
    "tied_to": {"en": "tied to {name}, counted once", "zh": "与 {name} 共享，只计一次"},
    "buffer_note": {
        "en": "a buffer: in state_dict and the saved file, not a parameter",
        "zh": "缓冲区：在 state_dict 和保存的文件里，不是参数",
    },
    "subtotal": {"en": "Subtotal", "zh": "小计"},
    # The split model cards quote ("86M backbone + 98M embedding"): the embedding layer, and the rest.
    "embedding_params": {"en": "Embedding layer (the model-card split)", "zh": "嵌入层（模型卡片的拆分）"},
    "non_embedding_params": {"en": "Everything else (the model card's “backbone”)", "zh": "其余部分（模型卡片所说的“主干”）"},
    # transformers' own definition: every nn.Embedding weight left out, the embedding LayerNorm kept.
    "num_parameters_exclude_embeddings": {
        "en": "transformers' num_parameters(exclude_embeddings=True)",
        "zh": "transformers 的 num_parameters(exclude_embeddings=True)",
    },
    "formula": {"en": "Formula", "zh": "公式"},
    "memory": {"en": "Weight memory", "zh": "权重本身占用的内存/显存"},
    "dtype": {"en": "dtype", "zh": "数据类型"},
    "bytes": {"en": "Bytes", "zh": "字节"},
    "model": {"en": "Model", "zh": "模型"},
    "architecture": {"en": "Architecture", "zh": "架构"},
    "per_layer_formula": {"en": "One layer", "zh": "单层"},
    "layers_formula": {"en": "All layers", "zh": "全部层"},
    "residual": {"en": "residual connection: 0 parameters", "zh": "残差连接：0 个参数"},
    "share_chart_title": {"en": "Where the {total} parameters of {model} are", "zh": "{model} 的 {total} 个参数分布在哪里"},
    "layer_diagram_title": {"en": "One encoder layer of {model}: {total} parameters", "zh": "{model} 的一个编码器层：{total} 个参数"},
    "pooler_on": {"en": "with pooler", "zh": "含池化层"},
    "pooler_off": {"en": "without pooler", "zh": "不含池化层"},
}


def label(key: str, lang: str = "en", **params: object) -> str:
    """The label for ``key`` in ``lang`` ("en" or "zh"), with ``{placeholders}`` filled."""
    text = LABELS[key]["zh" if lang == "zh" else "en"]
    return text.format(**params) if params else text
