"""A test-only stand-in for einops (not installed here, not in Debian), for
the parity test's KernelBench modules (level3/48_Mamba2ReturnY.py,
level3/49_Mamba2ReturnFinalState.py). It implements only rearrange, for
patterns of names, parenthesised groups of names and one "...", with the
sizes of split groups given as keywords, by torch reshape and permute, as
einops does for a torch tensor:

    rearrange(x, "b (c l) ... -> b c l ...", l=64)
    rearrange(x, "b c l h -> b h c l")
    rearrange(x, "b c l h p -> b (c l) h p")

Anything else (repeats, reductions, anonymous axes) raises."""
import math

__all__ = ["rearrange"]


def _parse(side):
    """The side's entries: a name, a list of names (a group) or "..."."""
    entries, group = [], None
    for token in side.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if group is not None:
                raise ValueError("einops shim: nested groups")
            group = []
        elif token == ")":
            if group is None:
                raise ValueError("einops shim: ')' without '('")
            entries.append(group)
            group = None
        elif token == "..." or token.isidentifier():
            (group if group is not None else entries).append(token)
        else:
            raise ValueError(f"einops shim: unsupported axis {token!r}")
    if group is not None:
        raise ValueError("einops shim: '(' without ')'")
    return entries


def rearrange(tensor, pattern, **sizes):
    left, right = (_parse(s) for s in pattern.split("->"))
    ell = ["..."] if "..." in left else []
    n_named = len(left) - len(ell)
    n_ell = tensor.dim() - n_named
    if n_ell < 0 or (n_ell and not ell):
        raise ValueError(f"einops shim: {pattern!r} does not match {tuple(tensor.shape)}")
    # the elementary axes of the input, in order, with their sizes
    axes, known = [], dict(sizes)
    dims = iter(tensor.shape)
    for entry in left:
        if entry == "...":
            for k in range(n_ell):
                axes.append(f"...{k}")
                known[f"...{k}"] = next(dims)
        elif isinstance(entry, list):
            total = next(dims)
            unknown = [a for a in entry if a not in known]
            if len(unknown) > 1:
                raise ValueError(f"einops shim: sizes of {unknown} not given")
            if unknown:
                known[unknown[0]] = total // math.prod(known[a] for a in entry if a in known)
            if math.prod(known[a] for a in entry) != total:
                raise ValueError(f"einops shim: group {entry} does not split {total}")
            axes.extend(entry)
        else:
            axes.append(entry)
            known[entry] = next(dims)
    x = tensor.reshape([known[a] for a in axes])
    # the output's axes, "..." expanded, and the sizes of its groups
    order, out_shape = [], []
    for entry in right:
        names = entry if isinstance(entry, list) else [entry]
        size = 1
        for name in names:
            expanded = [f"...{k}" for k in range(n_ell)] if name == "..." else [name]
            order.extend(expanded)
            size *= math.prod(known[a] for a in expanded)
            if not isinstance(entry, list):
                out_shape.extend(known[a] for a in expanded)
        if isinstance(entry, list):
            out_shape.append(size)
    if sorted(order) != sorted(axes):
        raise ValueError(f"einops shim: {pattern!r} changes the set of axes")
    x = x.permute([axes.index(a) for a in order])
    return x.reshape(out_shape)
