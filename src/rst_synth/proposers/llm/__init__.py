"""The llm proposer: an OpenAI-compatible model extends a task stage by stage (extend, realign the
tests, realign the instruction) and repairs a rejected candidate from the validator's report."""

from rst_synth.proposers.llm.child import Parts, build_child, parts_of
from rst_synth.proposers.llm.parse import Block, Expect, parse_reply, split_blocks
from rst_synth.proposers.llm.prompts import THEMES, InstructionMode, PromptBudgets, prompt_tokens
from rst_synth.proposers.llm.proposer import (
    LLMProposalError,
    LLMProposer,
    LLMProposerConfig,
)

__all__ = [
    "THEMES",
    "Block",
    "Expect",
    "InstructionMode",
    "LLMProposalError",
    "LLMProposer",
    "LLMProposerConfig",
    "Parts",
    "PromptBudgets",
    "build_child",
    "parse_reply",
    "parts_of",
    "prompt_tokens",
    "split_blocks",
]
