"""The planner's and the training step's settings, each declared once for the CLI and the page.

A setting is one :class:`Option`: its key (the page's query key and field name,
argparse's ``dest``), its CLI flag, its default, its words on the page (``label``)
and in ``--help`` (``help``), and its group. Everything else is derived from
:data:`OPTIONS`, so the CLI and the page cannot disagree on a name or a default:

* ``cli.py`` adds one argparse option per :attr:`Option.cli` (and per
  :attr:`Choice.cli`: ``--freeze-embeddings`` picks ``freeze=embeddings``);
* ``page/form.py`` and ``page/costs.py`` render one field per option of the
  planner and of the "Training cost" panel, with these labels and defaults;
* ``page/state.py`` and ``page/costs.py`` keep these keys in a share link;
* ``page/fields.py`` places an error beside the option it names.

Standard library only; imports nothing but the words helper, so any layer may use it.
"""
from __future__ import annotations

from .i18n import L
from .record import Record

#: The groups, in the CLI's order: the Hub's model id; LoRA and freezing form the page's planner; the step and
#: the card's size form its "Training cost" panel.
GROUPS: tuple[str, ...] = ("hub", "lora", "freeze", "step", "card", "fit", "find", "inference", "embed")
PLANNER_GROUPS: tuple[str, ...] = ("lora", "freeze")
#: "find": the panel's asking for the largest batch and length that fit its card (the CLI's is --fit-gib).
PANEL_GROUPS: tuple[str, ...] = ("step", "card", "find", "embed")
#: The groups the page has fields for (the Hub's model id: PAGE_HUB_KEYS).
PAGE_GROUPS: tuple[str, ...] = PLANNER_GROUPS + PANEL_GROUPS
#: The Hub's options the page has a field for: the model id, above the paste box (issue 33, item 4;
#: calculator/page/hub.py). The endpoint stays the CLI's: the page reads huggingface.co, with no token.
PAGE_HUB_KEYS: tuple[str, ...] = ("model",)


class Choice(Record):
    """One value of a menu: its words on the page, and the CLI flag that picks it, if any (a frozen record)."""

    __slots__ = ("value", "label", "cli", "help")
    value: str
    #: The menu's words for it (None: the value itself, as code).
    label: dict[str, str] | None
    #: A CLI flag (``store_true``) that picks this value, and its ``--help``.
    cli: str | None
    help: dict[str, str] | None

    def __init__(self, value: str, label: dict[str, str] | None = None, cli: str | None = None,
                 help: dict[str, str] | None = None) -> None:  # noqa: A002 - the field's name (argparse's word)
        self._set(value=value, label=label, cli=cli, help=help)

    @property
    def dest(self) -> str:
        """argparse's ``dest`` for :attr:`cli` (``--freeze-embeddings`` → ``freeze_embeddings``)."""
        return (self.cli or "").lstrip("-").replace("-", "_")


class Option(Record):
    """A setting of the planner or of the step, as the CLI and the page both offer it (a frozen record:
    :mod:`calculator.record`; its fields in order, with their defaults in ``__init__``)."""

    __slots__ = ("key", "group", "label", "help", "cli", "metavar", "default", "kind", "choices", "cli_required",
                 "codes", "cli_const")
    #: The query key, the form field's name (id ``calc-<key>``) and argparse's ``dest``.
    key: str
    #: One of :data:`GROUPS`.
    group: str
    #: The page's label for the field.
    label: dict[str, str]
    #: The CLI's ``--help`` for :attr:`cli` (may hold ``{default}``).
    help: dict[str, str] | None
    #: The CLI's flag (None: the page's only; a menu may still have flags per :class:`Choice`).
    cli: str | None
    metavar: str | None
    #: What the field holds, and what the setting is, when neither the address nor the command line says.
    default: str
    #: "int" (typed, numeric keyboard), "text", "choice" (a menu) or "flag" (a checkbox; CLI store_true).
    kind: str
    choices: tuple[Choice, ...]
    #: The CLI asks for it whenever its group is used, rather than assuming :attr:`default`
    #: (a step's B and L are the reader's to choose; the page starts its panel at the default).
    cli_required: bool
    #: Error codes about this setting raised where the page's field is not known by name
    #: (the cost engine's checks of the dtype, the optimizer, L against the model, checkpointing).
    codes: tuple[str, ...]
    #: What the CLI's flag alone means (argparse ``nargs="?"``, ``const``): ``--grad-checkpointing`` is
    #: transformers' default, non-reentrant; ``--grad-checkpointing reentrant`` names the other. None: a value is due.
    cli_const: str | None

    def __init__(self, key: str, group: str, label: dict[str, str], help: dict[str, str] | None = None,  # noqa: A002
                 cli: str | None = None, metavar: str | None = None, default: str = "", kind: str = "text",
                 choices: tuple[Choice, ...] = (), cli_required: bool = False, codes: tuple[str, ...] = (),
                 cli_const: str | None = None) -> None:
        self._set(key=key, group=group, label=label, help=help, cli=cli, metavar=metavar, default=default, kind=kind,
                  choices=choices, cli_required=cli_required, codes=codes, cli_const=cli_const)


#: A model read from the Hugging Face Hub (issue 33; the CLI's, calculator/hub.py). Its errors name it:
#: the repo's (bad id, not found, gated, no config, a bad header) by code; an endpoint that is not a URL by field.
MODEL = Option(
    "model", "hub", cli="--model", metavar="REPO[@REV]",
    codes=("hub_bad_id", "hub_not_found", "hub_gated", "hub_no_config", "hub_bad_header"),
    label=L("Model id on the Hugging Face Hub", "Hugging Face Hub 上的模型 id"),
    help=L("a model on the Hugging Face Hub: REPO, REPO@REVISION or its address (reads config.json and the "
           "safetensors headers; HF_TOKEN for gated or private repos)",
           "Hugging Face Hub 上的模型：REPO、REPO@版本或其网址（读取 config.json 和 safetensors 文件头；"
           "受限或私有仓库需设置 HF_TOKEN）"),
)
ENDPOINT = Option(
    "endpoint", "hub", cli="--endpoint", metavar="URL",
    label=L("The Hub's address", "Hub 的地址"),
    help=L("the Hub's address for --model (default: HF_ENDPOINT, else https://huggingface.co)",
           "--model 使用的 Hub 地址（默认取 HF_ENDPOINT，否则为 https://huggingface.co）"),
)
LORA_R = Option(
    "lora_r", "lora", cli="--lora-r", metavar="R", kind="int",
    label=L("LoRA rank r (empty: no LoRA)", "LoRA 的秩 r（留空则不加 LoRA）"),
    help=L("rank r (default {r}, LoraConfig's)", "秩 r（默认 {r}，与 LoraConfig 相同）"),
)
LORA_TARGETS = Option(
    "lora_targets", "lora", cli="--lora-targets", metavar="A,B",
    label=L("target_modules, comma-separated, or all-linear (empty: peft's default)",
            "target_modules，用逗号分隔，或 all-linear（留空则用 peft 的默认值）"),
    help=L("target_modules: module names (query,value), or all-linear; default: peft's for the model_type",
           "target_modules：模块名（如 query,value）或 all-linear；默认为 peft 对该 model_type 的默认值"),
)
LORA_BIAS = Option(
    "lora_bias", "lora", cli="--lora-bias", metavar="MODE", kind="choice", default="none",
    choices=(Choice("none"), Choice("all"), Choice("lora_only")),
    label=L("bias", "bias（偏置的训练方式）"),
    help=L("none (default), all or lora_only", "none（默认）、all 或 lora_only"),
)
PEFT_TASK_TYPE = Option(
    "peft_task_type", "lora", cli="--peft-task-type", metavar="TYPE", kind="choice",
    choices=(Choice("", L("(none)", "（不设置）")), Choice("SEQ_CLS"), Choice("TOKEN_CLS"), Choice("QUESTION_ANS")),
    label=L("task_type (adds the task head to modules_to_save)", "task_type（会把任务头加入 modules_to_save）"),
    help=L("SEQ_CLS, TOKEN_CLS or QUESTION_ANS (adds the head to modules_to_save)",
           "SEQ_CLS、TOKEN_CLS 或 QUESTION_ANS（把任务头加入 modules_to_save）"),
)
MODULES_TO_SAVE = Option(
    "modules_to_save", "lora", cli="--modules-to-save", metavar="A,B",
    label=L("module names, comma-separated", "模块名，用逗号分隔"),
    help=L("modules trained in full, as a copy", "完整训练的模块（peft 会复制一份）"),
)
#: The page's one menu is the CLI's two flags (the CLI may give both; the page picks one).
FREEZE = Option(
    "freeze", "freeze", kind="choice",
    choices=(
        Choice("", L("nothing", "不冻结")),
        Choice("embeddings", L("the embeddings", "嵌入层"), cli="--freeze-embeddings",
               help=L("requires_grad_(False) on the embeddings", "对嵌入层调用 requires_grad_(False)")),
        Choice("all_but_head", L("everything but the task head", "除任务头以外的全部参数"), cli="--freeze-all-but-head",
               help=L("... on everything but the task head", "……对任务头以外的全部参数")),
    ),
    label=L("Freeze (without LoRA)", "冻结（不加 LoRA 时）"),
)
FREEZE_LAYERS = Option(
    "freeze_layers", "freeze", cli="--freeze-layers", metavar="K", kind="int",
    label=L("…and the first K encoder layers (K)", "……以及前 K 个编码器层（K）"),
    help=L("... on the first K encoder layers", "……对前 K 个编码器层"),
)
BATCH = Option(
    "batch", "step", cli="--batch", metavar="B", kind="int", default="32", cli_required=True,
    label=L("Batch size B", "批大小 B"),
    help=L("batch size; given with --seq-len, prints the cost of one training step",
           "批大小；与 --seq-len 一起给出时，输出训练一步的开销"),
)
SEQ_LEN = Option(
    "seq_len", "step", cli="--seq-len", metavar="L", kind="int", default="128", cli_required=True,
    codes=("costs_seq_too_long",),
    label=L("Sequence length L (tokens)", "序列长度 L（token 数）"),
    help=L("sequence length (tokens per sequence); needs --batch too",
           "序列长度（每条序列的 token 数）；需与 --batch 同时给出"),
)
DTYPE = Option(
    "dtype", "step", cli="--dtype", metavar="fp32|bf16", kind="choice", default="fp32", codes=("costs_dtype",),
    label=L("dtype (the whole model cast, not Trainer(bf16=True)'s autocast)",
            "数据类型（整个模型转换，不是 Trainer(bf16=True) 的 autocast）"),
    help=L("the whole model cast (model.to(dtype)), not Trainer(bf16=True)'s autocast with fp32 master weights; "
           "default fp32",
           "整个模型转换为该数据类型（model.to(dtype)），不是 Trainer(bf16=True) 那种 autocast 加 fp32 主权重；默认 fp32"),
)
OPTIMIZER = Option(
    "optimizer", "step", cli="--optimizer", metavar="NAME", kind="choice", default="adamw", codes=("costs_optimizer",),
    label=L("Optimizer", "优化器"),
    help=L("adamw (default), sgd, sgd-momentum or adafactor", "adamw（默认）、sgd、sgd-momentum 或 adafactor"),
)
#: Gradient checkpointing: off, non-reentrant (use_reentrant=False, transformers 5.23's default: a link's ``ckpt=1``,
#: the CLI's flag alone) or reentrant (``ckpt=reentrant``, ``--grad-checkpointing reentrant``); issue 35 H3.
CKPT = Option(
    "ckpt", "step", cli="--grad-checkpointing", metavar="non-reentrant|reentrant", kind="choice", default="0",
    cli_const="non-reentrant", codes=("costs_no_checkpointing", "costs_checkpointing_mode"),
    choices=(
        Choice("0", L("off", "关闭")),
        Choice("1", L("non-reentrant (use_reentrant=False, transformers' default)",
                      "非重入式（use_reentrant=False，transformers 的默认值）")),
        Choice("reentrant", L("reentrant (use_reentrant=True)", "重入式（use_reentrant=True）")),
    ),
    label=L("Gradient checkpointing", "梯度检查点"),
    help=L("gradient checkpointing; alone: non-reentrant (use_reentrant=False), transformers 5.23's default; "
           "reentrant: use_reentrant=True",
           "梯度检查点；不带值时为非重入式（use_reentrant=False），即 transformers 5.23 的默认值；"
           "reentrant：use_reentrant=True"),
)
#: The attention the step runs (issue 32): by default what transformers 5.23 builds the class with (SDPA where the
#: class supports it and its SDPA step is worked out here, else eager; the answer's assumptions say which ran),
#: or eager, or PyTorch's SDPA as transformers calls it (``attn_implementation="sdpa"``; the fused kernel, with
#: attention dropout measured at 0 as a GPU's fused kernels keep it).
ATTENTION = Option(
    "attention", "step", cli="--attention", metavar="default|eager|sdpa", kind="choice", default="default",
    choices=(Choice("default", L("transformers' default for the class", "transformers 对该类的默认实现")),
             Choice("eager"), Choice("sdpa")),
    codes=("costs_attention", "costs_no_sdpa", "costs_sdpa_not_modelled"),
    label=L("Attention (attn_implementation)", "注意力实现（attn_implementation）"),
    help=L("default: what transformers 5.23 builds the class with (sdpa where the class supports it, else eager); "
           "eager; or sdpa: attn_implementation=\"sdpa\", PyTorch's scaled_dot_product_attention "
           "(its fused kernel; attention dropout measured at 0, as a GPU's fused kernels keep no mask)",
           "default（默认）：transformers 5.23 构建该类时的实现（支持 SDPA 的类用 sdpa，否则用 eager）；"
           "eager；或 sdpa：attn_implementation=\"sdpa\"，即 PyTorch 的 scaled_dot_product_attention"
           "（融合 kernel；注意力 dropout 按 0 计算，GPU 的融合 kernel 不保存掩码）"),
)
#: Mixed precision (issue 32): fp32 weights, ``torch.autocast("cpu", dtype=torch.bfloat16)`` around the forward
#: only, as Trainer(bf16=True) runs it; off by default. With dtype bf16 it is refused (``costs_autocast_dtype``).
MIXED_PRECISION = Option(
    "mixed_precision", "step", cli="--mixed-precision", metavar="bf16", kind="choice", default="",
    choices=(Choice("", L("off", "关闭")),
             Choice("bf16", L("bf16 autocast, fp32 weights (Trainer(bf16=True))",
                              "bf16 autocast，fp32 权重（Trainer(bf16=True)）"))),
    codes=("costs_mixed_precision", "costs_autocast_dtype", "costs_autocast_family"),
    label=L("Mixed precision (autocast)", "混合精度（autocast）"),
    help=L("bf16: weights in float32, torch.autocast(\"cpu\", dtype=torch.bfloat16) around the forward only, as "
           "Trainer(bf16=True) runs it; needs --dtype fp32; default off",
           "bf16：权重保持 float32，只在前向传播外层套 torch.autocast(\"cpu\", dtype=torch.bfloat16)，"
           "与 Trainer(bf16=True) 相同；需配合 --dtype fp32；默认关闭"),
)
#: The N of "fits in N GB?" (GiB: what a card sold as N GB holds); not a setting of the step itself.
GPU_GB = Option(
    "gpu_gb", "card", cli="--gpu-gb", metavar="N", kind="int", default="24",
    label=L("GPU memory N GB (N)", "显存 N GB（N）"),
    help=L("the card's memory, N GB (read as N GiB): whether the step fits, from its peak or, where the peak "
           "has no figure, its proven bounds",
           "显卡显存 N GB（按 N GiB 计算）：按这一步的峰值判断放不放得下；峰值没有精确值时，按已证明的上下界判断"),
)
#: A memory budget: the largest batch and length whose training peak fits it (issue 32; calculator/costs/fit.py).
#: The CLI's alone so far: the page's panel shows the peak against its card (``gpu_gb``).
FIT_GIB = Option(
    "fit_gib", "fit", cli="--fit-gib", metavar="X", codes=("peak_budget", "peak_budget_below_weights"),
    label=L("Memory budget X GiB", "显存预算 X GiB"),
    help=L("a memory budget of X GiB (X·2^30 bytes, rounded down): adds the largest batch at --seq-len and "
           "the largest length at --batch whose training peak fits it",
           "显存预算 X GiB（X·2^30 字节，向下取整）：加上在 --seq-len 下峰值放得下的最大批大小，以及在 --batch 下的最大序列长度"),
)
#: The panel's "find the largest batch and length that fit in N GB" (issue 32 item 3): the budget is the card's N
#: GiB; a search runs many steps, so only when asked (off by default, kept in the link as ``fit=1``). The page's
#: alone: the CLI asks with ``--fit-gib`` (any budget).
FIT = Option(
    "fit", "find", kind="flag", default="0",
    label=L("Find the largest batch (at L) and length (at B) that fit in N GB",
            "找出 N GB 放得下的最大批大小（L 不变）和最大序列长度（B 不变）"),
)

#: The inference span instead of a training step (issue 32): ``model.eval()``, one forward under
#: ``torch.no_grad()``, its outputs kept (calculator/costs/inference.py). The CLI's alone so far (group "inference",
#: not a panel group); with a training option (optimizer, checkpointing, LoRA, freezing, --fit-gib) it is refused.
INFERENCE = Option(
    "inference", "inference", cli="--inference", kind="flag", default="0", codes=("costs_inference_option",),
    label=L("Inference: one forward (model.eval(), torch.no_grad())", "推理：一次前向传播（model.eval()，torch.no_grad()）"),
    help=L("cost inference instead of a training step: model.eval(), one forward under torch.no_grad(), its outputs "
           "kept: forward FLOPs and the peak of live memory (needs --batch and --seq-len)",
           "计算推理而不是训练步：model.eval()，在 torch.no_grad() 下做一次前向传播并保留输出：前向 FLOPs 和显存峰值"
           "（需要 --batch 和 --seq-len）"),
)

#: The panel's inference mode (issue 32 item 3, "embed N passages of L tokens"): the page's alone (the CLI's is
#: ``--inference``, one forward of B × L): the mode, how many passages, and the GPU's stated peak TFLOPS for an
#: estimated time (calculator/views/embed.py).
MODE = Option(
    "mode", "embed", kind="choice", default="train", codes=("costs_mode",),
    choices=(Choice("train", L("training step", "训练一步")),
             Choice("inference", L("inference: embed N passages (model.eval(), torch.no_grad())",
                                   "推理：为 N 段文本生成嵌入（model.eval()，torch.no_grad()）"))),
    label=L("What to cost", "计算什么"),
)
PASSAGES = Option(
    "passages", "embed", kind="int", default="10000", codes=("costs_embed_too_large",),
    label=L("Passages N (inference)", "文本段数 N（推理）"),
)
TFLOPS = Option(
    "tflops", "embed", kind="text", default="100", codes=("costs_tflops",),
    label=L("GPU's stated peak TFLOPS (inference, for an estimated time)", "GPU 标称峰值 TFLOPS（推理，用于估算时间）"),
)

#: Every option, in the CLI's and the page's order.
OPTIONS: tuple[Option, ...] = (
    MODEL, ENDPOINT, LORA_R, LORA_TARGETS, LORA_BIAS, PEFT_TASK_TYPE, MODULES_TO_SAVE, FREEZE, FREEZE_LAYERS,
    BATCH, SEQ_LEN, DTYPE, OPTIMIZER, CKPT, ATTENTION, MIXED_PRECISION, GPU_GB, FIT_GIB, FIT, INFERENCE,
    MODE, PASSAGES, TFLOPS,
)
BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


def keys(*groups: str) -> tuple[str, ...]:
    """The query keys of the options in ``groups``, in declaration order."""
    return tuple(o.key for o in OPTIONS if o.group in groups)


def defaults(*groups: str) -> dict[str, str]:
    """{key: default} for the options in ``groups``: what the page's fields hold when the address does not say."""
    return {o.key: o.default for o in OPTIONS if o.group in groups}


def owner_of(code: str) -> Option | None:
    """The option an error code is about when its raiser cannot name it (:attr:`Option.codes`)."""
    return next((o for o in OPTIONS if code in o.codes), None)


#: The planner's keys (LoRA's, then freezing's) and the "Training cost" panel's, as links carry them.
LORA_KEYS: tuple[str, ...] = keys("lora")
FREEZE_KEYS: tuple[str, ...] = keys("freeze")
PLANNER_KEYS: tuple[str, ...] = keys(*PLANNER_GROUPS)
PANEL_KEYS: tuple[str, ...] = keys(*PANEL_GROUPS)
