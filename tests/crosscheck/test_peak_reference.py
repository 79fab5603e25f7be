"""The peak harness (``peak_measure``) proven on steps whose live memory is worked out by hand here.

Each expected figure is derived in the test from what each operation returns and what autograd saves
(written out beside it), never from the harness. Then the harness's other routes are held to it:
fake tensors give the same figures as real ones, and the 512-byte rounding equals PyTorch's MemTracker.
Everything is tiny (milliseconds a step, one thread).
"""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from .peak_measure import (  # noqa: E402
    LiveBytes, Step, _cuda_rounding, backward_ledger, measure_peak, memtracker_step,
)

F32 = 4  # bytes of a float32


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _span(model, x, opt, mode):
    """The training span for a plain module: out = model(x); loss = out.sum(); del out; backward; del; step."""
    with mode:
        mode.set_phase("forward")
        out = model(x)
        mode.set_phase("loss")
        loss = out.sum()
        del out
        mode.set_phase("backward")
        loss.backward()
        del loss
        mode.set_phase("optimizer")
        opt.step()
        mode.set_phase("end")


def _linear():
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    x = torch.randn(2, 4)
    return lin, x, torch.optim.AdamW(lin.parameters(), foreach=False)


def test_linear_adamw_by_hand() -> None:
    """nn.Linear(4, 3), x [2, 4], AdamW on the CPU (one tensor at a time).

    start: W 3·4·4 = 48, b 3·4 = 12, x 2·4·4 = 32                                   -> 92
    forward: addmm(b, x, W.t()) returns out [2, 3] = 24 (saves x and W: live already) -> 116
    loss = out.sum(): 4; del out (nothing saved it): -24                            -> 96
    backward: the engine's ones_like(loss) 4; SumBackward expands it (a view);
      AddmmBackward: grad W [3, 4] 48 (computed in W.t()'s layout, so TBackward's view
      is contiguous and AccumulateGrad keeps it), grad b = sum over the batch 12     -> 160
      then the ones are released: -4; del loss: -4                                   -> 152
    AdamW: state per parameter, W first: step 4 (a 0-d float32), exp_avg 48, exp_avg_sq 48,
      then b: 4, 12, 12 = 128                                                        -> 280
      update of W: denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps):
      sqrt 48 and div 48 live together                                               -> 376 = the peak
      (then the sqrt goes; W's denom stays bound to the loop's variable until b's own denom is
      assigned: b's sqrt 12 and div 12 come on top of it, 280 + 48 + 24 = 352, less)
    """
    lin, x, opt = _linear()
    mode = LiveBytes([*lin.parameters(), x])
    assert mode.now == 92
    _span(lin, x, opt, mode)
    assert (mode.peak, mode.peak_phase, mode.peak_op) == (376, "optimizer", "aten.div")
    live = sorted(mode.live_at_peak().values())
    assert live == sorted([48, 12, 32, 48, 12, 4, 48, 48, 4, 12, 12, 48, 48])
    assert mode.phase_live == {"forward": 92, "loss": 116, "backward": 96, "optimizer": 152, "end": 280}
    assert max(now for _, now in mode.timeline[mode.phase_starts["backward"]:mode.phase_starts["optimizer"]]) == 160
    assert mode.now == 280  # the step's end: weights, input, gradients, state


def _memtracker_peak(cuda_rounding: bool) -> dict[str, int]:
    """MemTracker's peak snapshot of the Linear's step (:func:`_linear`, the issue's span), with its rounding to
    CUDA's 512-byte blocks applied to CPU storages or not (:func:`_cuda_rounding`)."""
    from torch.distributed._tools.mem_tracker import MemTracker

    lin, x, opt = _linear()
    assert x.device.type == "cpu"
    tracker = MemTracker()
    with _cuda_rounding(cuda_rounding):
        tracker.track_external(lin, x, opt)
        with tracker:
            out = lin(x)
            loss = out.sum()
            del out
            loss.backward()
            del loss
            opt.step()
    (snap,) = tracker.get_tracker_snapshot("peak").values()
    return snap


def test_linear_rounded_to_cuda_blocks_equals_memtracker() -> None:
    """Rounded to 512 bytes, every storage costs one block: the peak is 512 × the most storages live at once.
    That moment moves: the update of W holds 13 (W, b, x, two gradients, six states, sqrt, div), the update
    of b 14 (the same eleven, W's denom still bound to the loop's variable, b's sqrt and div). MemTracker agrees."""
    lin, x, opt = _linear()
    mode = LiveBytes([*lin.parameters(), x], round_to=512)
    _span(lin, x, opt, mode)
    assert (mode.peak, mode.peak_phase) == (14 * 512, "optimizer")
    snap = _memtracker_peak(True)
    assert snap["Total"] == 14 * 512


def test_memtracker_measures_a_cpu_step_but_rounds_only_cuda() -> None:
    """Issue 35's reference on the CPU with torch 2.13: MemTracker runs a CPU step (the Linear's, worked out by
    hand above: 376 bytes unrounded) and measures it, but rounds a storage to 512 bytes only when its device is
    ``cuda`` (``_WeakRefInfo._calculate_mem_consumed``): unpatched, its CPU peak is the unrounded 376, not 14
    blocks. So the 512 figure is cross-checked against MemTracker with ``_cuda_rounding`` (above) and against
    ``LiveBytes(round_to=512)`` (tests/crosscheck/test_peak_engine.py: the engine's ``peak_512``)."""
    snap = _memtracker_peak(False)
    assert snap["Total"] == 376  # the Linear's step runs on the CPU (_linear)


def test_two_layer_mlp_sgd_peaks_in_backward_by_hand() -> None:
    """Linear(4, 8), ReLU, Linear(8, 3); x [2, 4]; plain SGD (updates in place: no state, no temporary).

    start: W1 128, b1 32, W2 96, b2 12, x 32                                        -> 300
    forward: h = addmm 2·8·4 = 64 -> 364; r = relu(h) 64 -> 428 (the forward's most);
      h is dropped by Sequential (ReLU saves its result, not its input) -> 364;
      y = addmm 24 -> 388; loss 4 -> 392; del y -> 368
    backward: ones 4 (made by torch.autograd.backward in Python and held by its frame until the
      backward returns) -> 372; layer 2's AddmmBackward: grad r 64, grad W2 96, grad b2 12 -> 544;
      ReluBackward (threshold_backward): grad h 64 -> 608, then grad r and r (saved by both nodes,
      now by none) released -> 480; layer 1's AddmmBackward: grad W1 128, grad b1 32 (x needs no
      gradient) -> 640 = the peak; grad h released -> 576; the backward returns: ones -> 572
    optimizer: SGD adds in place -> 572 - loss 4 = 568 = weights + x + gradients
    """
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x = torch.randn(2, 4)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.1, foreach=False)
    mode = LiveBytes([*mlp.parameters(), x])
    assert mode.now == 300
    _span(mlp, x, opt, mode)
    assert (mode.peak, mode.peak_phase, mode.peak_op) == (640, "backward", "aten.sum")
    forward = [now for _, now in mode.timeline[:mode.phase_starts["loss"]]]
    assert max(forward) == 428
    assert mode.now == 568
    assert sorted(mode.live_at_peak().values()) == sorted([128, 32, 96, 12, 32, 4, 4, 96, 12, 64, 128, 32])


def test_mlp_ledger_releases_saved_tensors_after_each_node() -> None:
    """Hooks around each node of the MLP's backward: ReLU's node allocates grad h (64) and, once it returns,
    its saved result r (64) and the incoming grad r (64) are released: 128 after it, before the next node."""
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x = torch.randn(2, 4)
    mode = LiveBytes([*mlp.parameters(), x])
    marks = []
    with mode:
        loss = mlp(x).sum()
        node = loss.grad_fn
        nodes = []
        stack = [node]
        while stack:
            n = stack.pop()
            if n is None or n in nodes:
                continue
            nodes.append(n)
            stack.extend(fn for fn, _ in n.next_functions)
        for n in nodes:
            name = n.name()
            n.register_prehook(lambda g, name=name: marks.append((name, "pre", mode.now)))
            n.register_hook(lambda gi, go, name=name: marks.append((name, "post", mode.now)))
        del node, n, nodes, stack
        loss.backward()
    seq = [(name, kind) for name, kind, _ in marks]
    i = seq.index(("ReluBackward0", "pre"))
    pre, post, nxt = marks[i][2], marks[i + 1][2], marks[i + 2][2]
    assert (post - pre, nxt - post) == (64, -128)


#: A tiny BERT: H = 8, 2 heads of 4, one layer, I = 12, V = 50; B = 1, L = 4.
TINY_BERT = {"vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
             "intermediate_size": 12, "max_position_embeddings": 16, "type_vocab_size": 2}


def _bert_weights(h=8, i=12, v=50, p=16, t=2) -> int:
    embeddings = (v + p + t) * h + 2 * h
    layer = 4 * (h * h + h) + 2 * h + (h * i + i) + (i * h + h) + 2 * h
    pooler = h * h + h
    return (embeddings + layer + pooler) * F32


def test_tiny_bert_forward_live_set_by_hand() -> None:
    """BertModel, eager fp32, train mode (dropout 0.1), B = 1, L = 4: what is live when the forward returns.

    Besides weights, buffers (position_ids and token_type_ids, [1, 16] int64: 2 · 128) and input_ids (32),
    what autograd saves and the outputs. One [n, H] float32 with n = B·L = 4 tokens is 4·8·4 = 128 bytes;
    one [B, A, L, L] is 1·2·4·4·4 = 128 too; LayerNorm's mean and rstd are [1, 4, 1]: 16 each.

    * Dropout on the CPU is not ``native_dropout``: ATen's ``dropout`` takes the fused kernel only on
      CUDA-like devices; here it is ``empty_like`` -> ``bernoulli_`` -> ``div_`` -> ``mul``, so the mask
      saved by the ``mul`` is a float32 tensor as large as its input (128), not a bool one.
    * Each op that saves only its output (softmax, tanh) or nothing (add, mul by a number) lets its input go.
    * At B = 1 the heads' transposes reshape into ``bmm``'s [B·A, L, d] as views: no copy of q, k, v.

    embeddings: token_type_ids gathered from the buffer (int64 [1, 4]: 32, saved by its embedding);
      the sum of three lookups 128 (LayerNorm's input), mean 16, rstd 16; dropout's mask 128 and
      output 128 (the layer's input, saved by the q, k, v projections)                       = 448
    attention: q, k, v 3 · 128 (saved by the two bmm through views); scores · scale go once softmax
      returns; softmax output 128 (saved); dropout mask 128 and output 128 (saved by bmm);
      context made contiguous (clone) 128, saved by the output projection; its dropout mask 128
      (the dropout output goes after the residual add); the residual sum 128 (LayerNorm's input),
      LayerNorm output 128, mean 16, rstd 16                                                   = 1,312
    feed-forward: up-projection 192 (GELU's input), GELU output 192 (the down-projection's input);
      dropout mask 128; residual sum 128; LayerNorm output 128 (last_hidden_state), 16, 16     = 800
    pooler: the first token's row is a view; dense output [1, 8] goes once tanh returns;
      tanh's output 32 (saved; pooler_output)                                                  = 32
    """
    activations = 448 + 1312 + 800 + 32
    assert activations == sum([32, 128, 16, 16, 128, 128]) + sum([3 * 128, 128, 128, 128, 128, 128, 128, 128,
                                                                  16, 16]) \
        + sum([192, 192, 128, 128, 128, 16, 16]) + 32
    buffers = 2 * 16 * 8
    ids = 4 * 8
    result = measure_peak(Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, optimizer="sgd"))
    at_forward_end = result.phase_live["loss"]
    assert at_forward_end == _bert_weights() + buffers + ids + activations


def test_fake_tensors_and_rounding_routes_agree() -> None:
    """Fake tensors (shapes only) give the real step's peak; 512-byte rounding equals MemTracker's peak."""
    for options in ({}, {"attention": "sdpa", "checkpointing": "non-reentrant"}, {"autocast": True},
                    {"dtype": "bf16", "checkpointing": "reentrant"}, {"inference": True}):
        step = Step("bert", "BertForSequenceClassification", TINY_BERT, batch=2, seq_len=5, **options)
        real = measure_peak(step)
        fake = measure_peak(step, fake=True)
        assert (fake.peak, fake.phase, fake.op) == (real.peak, real.phase, real.op), options
        rounded = measure_peak(step, round_to=512, fake=True)
        assert rounded.peak == memtracker_step(step)["Total"], options
        assert rounded.peak == measure_peak(step, round_to=512).peak, options


def test_peak_names_its_items() -> None:
    """At a tiny step's optimizer peak every weight, gradient and AdamW state is named, and the rest are op outputs."""
    result = measure_peak(Step("bert", "BertModel", TINY_BERT))
    kinds = result.by_kind()
    weights = _bert_weights()
    assert kinds["param"] == kinds["grad"] == kinds["exp_avg"] == kinds["exp_avg_sq"] == weights
    assert result.phase == "optimizer"
    word = 50 * 8 * F32  # the largest parameter: its sqrt and its division live together
    assert ("act:aten.sqrt", word) in result.at_peak and ("act:aten.div", word) in result.at_peak


def test_ledger_covers_the_backward() -> None:
    """The ledger's nodes account for every byte the backward allocates and frees (none lost between nodes)."""
    step = Step("bert", "BertModel", TINY_BERT, optimizer="sgd")
    ledger = backward_ledger(step)
    first, last = ledger[0], ledger[-1]
    net = sum(r["allocated"] - r["freed_inside"] - r["freed_after"] + r["allocated_after"] for r in ledger)
    assert last["live_before"] + last["allocated"] - last["freed_inside"] - first["live_before"] == \
        net - (last["allocated_after"] - last["freed_after"])
    assert any(r["node"] == "SoftmaxBackward0" for r in ledger)
    assert math.isfinite(net)


def test_gpu_check_skips_cleanly_without_a_gpu() -> None:
    """benchmarks/gpu_check.py exits 0 with a message where there is no CUDA device (this machine)."""
    import subprocess
    import sys
    from pathlib import Path

    if torch.cuda.is_available():
        pytest.skip("a GPU is here: the script would run its steps")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "gpu_check.py"), "--quick"],
                          capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    assert "no CUDA device here; skipped" in done.stdout


def test_gpu_check_cpu_side_runs() -> None:
    """The script's CPU side (fake-tensor FLOPs beside the peak) runs on a tiny step: the forward of a Linear-only
    count is positive and the backward about twice it, as FlopCounterMode counts matmuls."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.py"
    spec = importlib.util.spec_from_file_location("gpu_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(list(module.setups(quick=True))) == 12
    forward, backward = module.flops(Step("bert", "BertModel", TINY_BERT, batch=2, seq_len=4), fake=True)
    real = module.flops(Step("bert", "BertModel", TINY_BERT, batch=2, seq_len=4), fake=False)
    assert (forward, backward) == real
    assert forward > 0 and backward > forward


def test_memtracker_differs_only_by_its_own_module_hooks() -> None:
    """With eager attention MemTracker's peak can exceed the step's: its ModTracker hangs
    ``register_multi_grad_hook`` on every module's inputs and outputs, which changes when some gradients
    are freed. LiveBytes run under a bare ModTracker (no MemTracker) gives MemTracker's figure exactly,
    so that, not the counting, is the whole difference."""
    from torch.distributed._tools.mod_tracker import ModTracker

    from .peak_measure import prepare, run_span

    config = {"vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
              "intermediate_size": 32, "max_position_embeddings": 70, "type_vocab_size": 1}
    step = Step("bert", "BertForSequenceClassification", config, batch=4, seq_len=64, attention="eager")
    tracked = memtracker_step(step, fake=False)["Total"]
    plain = measure_peak(step, round_to=512).peak
    model, _hf, ids = prepare(step)
    mode = LiveBytes([*model.parameters(), *model.buffers(), ids], round_to=512)
    with ModTracker():
        run_span(step, model, ids, mode, [])
    assert mode.peak == tracked
    assert plain < tracked


def test_inference_span_keeps_its_outputs() -> None:
    """Inference (eval, no_grad, outputs kept): nothing is saved, so when the span ends only the weights,
    buffers, input_ids and the two outputs are live: last_hidden_state [1, 4, 8] float32 (128 bytes) and
    pooler_output [1, 8] (32)."""
    result = measure_peak(Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, inference=True))
    assert result.end == _bert_weights() + 2 * 16 * 8 + 4 * 8 + 128 + 32
    assert result.phase == "forward"
    assert result.by_kind().get("grad", 0) == 0


def test_lora_step_by_hand() -> None:
    """peft LoRA r = 2 on query and value of the tiny BERT, AdamW. The adapters per targeted Linear: A [2, 8]
    and B [8, 2], (16 + 16) · 4 = 128 bytes; two Linears: 256. With so few trainable weights the peak is
    the forward's (no gradient, no state yet); when the span ends, live are the weights (base + 256),
    buffers 256, input_ids 32, the adapters' gradients 256, AdamW's exp_avg and exp_avg_sq 2 · 256 and
    four 0-d float32 steps 4 · 4."""
    step = Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, plan="lora",
                lora={"r": 2, "target_modules": ["query", "value"], "bias": "none", "task_type": None,
                      "modules_to_save": None})
    result = measure_peak(step)
    kinds = result.by_kind()
    assert kinds["param"] == _bert_weights() + 256
    assert result.phase == "forward" and "grad" not in kinds
    assert result.end == _bert_weights() + 256 + 256 + 32 + 256 + 2 * 256 + 4 * 4
