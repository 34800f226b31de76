"""The SFT smoke test: TRL's SFTTrainer on `rst collect --format trl` output, on CPU, with nothing
downloaded: a tokenizer trained here on the exported data, a tiny Llama built from a config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported in the tests: torch, transformers and TRL take seconds to import
    from transformers import PreTrainedTokenizerFast

pytestmark = [
    pytest.mark.docker,  # the data comes from a real eval
    # transformers 5 renames it; TRL's config still sets it
    pytest.mark.filterwarnings("ignore:`gradient_checkpointing` is deprecated:FutureWarning"),
]
STEPS = 20

# ChatML with tool calls as <tool_call>JSON</tool_call>, as tool-calling chat templates write them.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "<|im_start|>{{ message.role }}\n"
    "{%- if message.role == 'system' and tools %}{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}{% endif %}"
    "{%- if message.content %}{{ message.content }}{% endif %}"
    "{%- for call in message.tool_calls or [] %}<tool_call>{{ call.function | tojson }}</tool_call>{% endfor %}"
    "<|im_end|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}"
)
SPECIAL = ["<|im_start|>", "<|im_end|>", "<|pad|>"]


def offline_tokenizer(records: list[dict[str, object]]) -> PreTrainedTokenizerFast:
    """A byte-level BPE trained on the exported conversations themselves."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator([json.dumps(record) for record in records], trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|pad|>")
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def test_sft_on_collected_trajectories_lowers_the_loss(collected: Path, tmp_path: Path) -> None:
    import datasets
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import SFTConfig, SFTTrainer

    path = collected / "trl" / "train.jsonl"
    train = datasets.load_dataset("json", data_files=str(path), split="train")
    tokenizer = offline_tokenizer([json.loads(line) for line in path.read_text().splitlines()])
    rendered = tokenizer.apply_chat_template(train[0]["messages"], tools=train[0]["tools"], tokenize=False)
    assert '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' in rendered

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=8192,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    args = SFTConfig(
        output_dir=str(tmp_path / "sft"),
        max_steps=STEPS,
        per_device_train_batch_size=2,
        learning_rate=5e-3,
        lr_scheduler_type="constant",
        logging_steps=1,
        max_length=8192,
        gradient_checkpointing=False,
        bf16=False,
        use_cpu=True,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        seed=0,
    )
    trainer = SFTTrainer(model=LlamaForCausalLM(config), args=args, train_dataset=train, processing_class=tokenizer)
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    print(f"SFT smoke: {len(train)} conversations, loss {losses[0]:.3f} -> {losses[-1]:.3f} over {len(losses)} steps")
    assert len(losses) == STEPS
    assert losses[-1] < 0.6 * losses[0]
