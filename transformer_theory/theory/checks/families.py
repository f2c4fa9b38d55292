"""The model families of the checks (:class:`Family`, :data:`FAMILIES`): a config per dataset, which
propositions each family reports, and which it holds in scope.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.params import ModelConfig, embed_dim

PROPOSITIONS = ("7", "8", "9", "10", "affine")
TOL_SAFETY = 16.0


# --------------------------------------------------------------------------------------------
# Families and scope
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Family:
    """A model family: config overrides on top of a dataset's ``(V, N, C)``.

    Attributes:
      name: short label used in tables and ``--families``.
      attention: ``"relu"`` or ``"softmax"``.
      heads: heads per layer (depth = ``len(heads)``).
      positional, relative, qk_dim, norm1, mlp_hidden, final_norm: as in :class:`ModelConfig`.
    """

    name: str
    attention: str = "relu"
    heads: tuple = (1,)
    positional: str = "onehot"
    relative: str | None = None
    qk_dim: int | None = None
    norm1: str | None = None
    mlp_hidden: int | None = None
    final_norm: str | None = None

    def config(self, vocab_size: int, seq_len: int, num_classes: int) -> ModelConfig:
        """The :class:`ModelConfig` of this family for a dataset (width = embedding + 2 spare
        dims)."""
        return ModelConfig(
            vocab_size=vocab_size,
            seq_len=seq_len,
            width=embed_dim(vocab_size, seq_len, self.positional) + 2,
            num_classes=num_classes,
            heads=tuple(self.heads),
            attention=self.attention,
            positional=self.positional,
            relative=self.relative,
            qk_dim=self.qk_dim,
            norm1=self.norm1,
            mlp_hidden=self.mlp_hidden,
            final_norm=self.final_norm,
        )

    def mismatches(self, config: ModelConfig) -> list[str]:
        """The fields in which ``config`` is not a model of this family (empty if it is one).

        Compared: what decides which propositions are in scope -- the attention kind, the heads per
        layer (hence the depth), the positional code and relative scheme, the factored query/key
        width, ``norm1``, the MLP and the final norm. Width, vocabulary, length and classes are the
        dataset's, not the family's.
        """
        wanted = {
            "attention": self.attention,
            "heads": tuple(self.heads),
            "positional": self.positional,
            "relative": self.relative,
            "qk_dim": self.qk_dim,
            "norm1": self.norm1,
            "mlp_hidden": self.mlp_hidden,
            "final_norm": self.final_norm,
        }
        return [
            f"{field}={getattr(config, field)!r} (family: {value!r})"
            for field, value in wanted.items()
            if getattr(config, field) != value
        ]

    def propositions(self) -> tuple[str, ...]:
        """Which statistics to report: ReLU -> 7, 8, affine; softmax -> 8 (plain lambda, a control),
        9, 10, affine."""
        return ("7", "8", "affine") if self.attention == "relu" else ("8", "9", "10", "affine")

    def in_scope(self, prop: str) -> bool:
        """Whether Chen & Zou 2024 (as corrected in the module docstring) predicts the relation to
        hold."""
        _validate.check_choice("prop", prop, PROPOSITIONS)
        relu, soft = self.attention == "relu", self.attention == "softmax"
        first_attention_only = self.mlp_hidden is None
        one_layer = len(self.heads) == 1 and first_attention_only and self.final_norm is None
        one_head = self.heads[0] == 1
        if prop == "7":  # first layer of ANY attention-only transformer
            return relu and first_attention_only
        if prop == "8":
            return relu and one_layer
        if prop == "9":
            return soft and one_head and first_attention_only
        if prop == "10":
            return soft and one_head and one_layer
        return (relu and one_layer) or (soft and one_head and one_layer)

    def weighted(self, prop: str) -> bool:
        """Props. 9, 10 and the softmax affine form use ``lambda'_i = Z_i lambda_i``."""
        return prop in ("9", "10") or (prop == "affine" and self.attention == "softmax")


def prop_target(prop: str) -> str:
    """``"stream1"`` (first-layer last-position stream) for Props. 7, 9; ``"logits"`` otherwise."""
    return "stream1" if prop in ("7", "9") else "logits"


FAMILIES = {
    f.name: f
    for f in (
        # in scope
        Family("relu-1h"),
        Family("relu-3h", heads=(3,)),
        Family("relu-sinusoidal", heads=(2,), positional="sinusoidal"),
        Family("relu-alibi", heads=(2,), relative="alibi"),
        Family("relu-rope", heads=(2,), positional="none", relative="rope", qk_dim=4),
        Family("relu-norm1", heads=(2,), norm1="layernorm"),
        Family("softmax-1h", attention="softmax"),
        Family(
            "softmax-rope-1h", attention="softmax", positional="none", relative="rope", qk_dim=4
        ),
        Family("softmax-norm1-1h", attention="softmax", norm1="rmsnorm"),
        # controls (partly in scope: Prop. 7 still holds for the first layer of a deep model)
        Family("relu-2layer", heads=(2, 2)),
        Family("relu-mlp", heads=(2,), mlp_hidden=8),
        Family("relu-finalnorm", heads=(2,), final_norm="layernorm"),
        Family("softmax-3h", attention="softmax", heads=(3,)),
    )
}
