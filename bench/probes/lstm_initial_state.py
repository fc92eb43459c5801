"""How much do level 3's LSTM outputs depend on the initial state h0, c0?

`kbv audit` at full size finds L3/36 (h_n) and L3/37 (c_n) independent of h0
and c0. This checks it in float64 PyTorch on the CPU, with kbv's own draw:
each directory is `kbv dump L3/N --full --seed S --out DIR` of L3/35-38. The
probe builds KernelBench's module (MODULES_DIR/level3/N_*.py), loads the
dumped params, checks that its float64 forward on the dumped inputs gives
kbv's oracle output, then keeps x and the weights, redraws h0 and c0
(torch.rand, as get_inputs() draws them) and prints the largest change of the
output, beside the output's largest magnitude and the audit's threshold
(1e-9 x max(1, that magnitude)), and for contrast the change when x alone is
redrawn. L3/35 makes zero states in its forward; it is run with the same
random states in their place. For the unidirectional
nets it also prints, per layer, the largest product over the sequence of the
forget gate (what is left of c0 in c_n along the direct path), from a float64
step-by-step LSTM that must reproduce nn.LSTM's states.

Usage: lstm_initial_state.py MODULES_DIR DUMP_DIR... [--draws N]
"""
import glob
import json
import os
import sys

import numpy as np
import torch

# What each problem returns, from nn.LSTM's (out, (h_n, c_n)) and the module's fc.
RESULT = {
    "L3/35": lambda m, out, hn, cn: m.fc(out[:, -1, :]),
    "L3/36": lambda m, out, hn, cn: hn,
    "L3/37": lambda m, out, hn, cn: cn,
    "L3/38": lambda m, out, hn, cn: m.fc(out[:, -1, :]),
}


def load_module(modules_dir, key):
    pid = key.split("/")[1]
    path = glob.glob(os.path.join(modules_dir, "level3", f"{pid}_*.py"))[0]
    ns = {"__name__": "kb_module"}
    exec(compile(open(path).read(), path, "exec"), ns)
    return ns


def forget_products(lstm, x, h0, c0):
    """Per layer, the largest prod_t f_t over batch and hidden (float64), and
    the layer's (h_n, c_n) from this step-by-step run."""
    layer_in, products, states = x, [], []
    for layer in range(lstm.num_layers):
        w_ih = getattr(lstm, f"weight_ih_l{layer}")
        w_hh = getattr(lstm, f"weight_hh_l{layer}")
        b = getattr(lstm, f"bias_ih_l{layer}") + getattr(lstm, f"bias_hh_l{layer}")
        h, c = h0[layer], c0[layer]
        log_prod = torch.zeros_like(c)
        outs = []
        for t in range(layer_in.shape[1]):
            i, f, g, o = (layer_in[:, t] @ w_ih.T + h @ w_hh.T + b).chunk(4, dim=1)
            f = torch.sigmoid(f)
            c = f * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            log_prod += torch.log(f)
            outs.append(h)
        products.append(log_prod.max().item() / np.log(10))
        states.append((h, c))
        layer_in = torch.stack(outs, dim=1)
    return products, states


def main():
    args = sys.argv[1:]
    draws = 5
    if "--draws" in args:
        k = args.index("--draws")
        draws = int(args[k + 1])
        del args[k:k + 2]
    modules_dir, dirs = args[0], args[1:]
    torch.set_grad_enabled(False)
    for d in dirs:
        meta = json.load(open(os.path.join(d, "meta.json")))
        key = meta["problem"]
        ns = load_module(modules_dir, key)
        model = ns["Model"](*ns["get_init_inputs"]()).double()
        model.load_state_dict({p["name"]: torch.from_numpy(np.load(os.path.join(d, p["file"])))
                               .double() for p in meta["params"]}, strict=True)
        inputs = {e["name"]: torch.from_numpy(np.load(os.path.join(d, e["file"]))).double()
                  for e in meta["inputs"]}
        x = inputs["x"]
        shape = (model.lstm.num_layers * (2 if model.lstm.bidirectional else 1), x.shape[0],
                 model.lstm.hidden_size)
        zeros = torch.zeros(shape, dtype=torch.float64)
        h0, c0 = inputs.get("h0", zeros), inputs.get("c0", zeros)
        # L3/35's forward makes float32 zeros when given no state: hand it float64 ones
        got = model(x, h0, c0)
        oracle = torch.from_numpy(np.load(os.path.join(d, meta["outputs"][0]["file"])))
        vs_oracle = (got - oracle).abs().max().item()

        def result(xs, h, c):
            out, (hn, cn) = model.lstm(xs, (h, c))
            return RESULT[key](model, out, hn, cn)

        base = result(x, h0, c0)
        assert torch.equal(base, got), f"{key}: the probe's result is not the module's forward"
        gen = torch.Generator().manual_seed(meta["seed"] + 1)
        change = 0.0
        for _ in range(draws):
            h = torch.rand(shape, generator=gen, dtype=torch.float64)
            c = torch.rand(shape, generator=gen, dtype=torch.float64)
            change = max(change, (result(x, h, c) - base).abs().max().item())
        x_change = (result(torch.rand(x.shape, generator=gen, dtype=torch.float64), h0, c0)
                    - base).abs().max().item()
        magnitude = base.abs().max().item()
        line = (f"{key} {meta['name']} ({meta['size']}, seed {meta['seed']}): module vs kbv's "
                f"oracle {vs_oracle:.2g}; h0, c0 redrawn {draws}x: max|change| {change:.3g}, "
                f"max|output| {magnitude:.3g}, audit threshold {1e-9 * max(1.0, magnitude):.2g}; "
                f"x redrawn instead: max|change| {x_change:.3g}")
        if not model.lstm.bidirectional:
            logs, states = forget_products(model.lstm, x, h0, c0)
            hn, cn = torch.stack([s[0] for s in states]), torch.stack([s[1] for s in states])
            _, (want_h, want_c) = model.lstm(x, (h0, c0))
            step_diff = max((hn - want_h).abs().max().item(), (cn - want_c).abs().max().item())
            line += (f"; largest prod_t f_t per layer 1e{', 1e'.join(f'{v:.0f}' for v in logs)}"
                     f" (step-by-step vs nn.LSTM {step_diff:.2g})")
        print(line, flush=True)


if __name__ == "__main__":
    main()
