"""Message utilities for API-shaped conversations (Anthropic and OpenAI).

- `tokens`: quick token estimate (4 characters a token) with a pluggable exact counter;
- `walk`: content blocks of a message in one vocabulary for both shapes;
- `merge`: merging consecutive same-role messages;
- `validate`: role alternation and tool_use / tool_result pairing checks, problems by index;
- `sanitize`: base64 blobs and binary replaced by placeholders stating type and size;
- `api`: API request messages built from a `Session` (merged, paired, sanitised);
- `calls`: tool calls as shown (command, edit diff, patch, JSON) and paired with their results;
- `items`: what a turn shows, one `Item` a block, decided for any viewer.
"""

from klipui.conversation.api import anthropic_request, openai_request
from klipui.conversation.calls import (
    Call,
    CallBody,
    CallView,
    call_of,
    call_view,
    calls_by_id,
    edit_diff,
)
from klipui.conversation.items import (
    Item,
    ItemKind,
    is_sidechain,
    result_call,
    result_text,
    turn_items,
)
from klipui.conversation.merge import merge_consecutive
from klipui.conversation.sanitize import sanitize_messages, sanitize_text
from klipui.conversation.tokens import estimate_tokens, quick_estimate, use_counter
from klipui.conversation.validate import (
    MessageProblem,
    check_alternation,
    check_messages,
    check_tool_pairs,
)
from klipui.conversation.walk import walk_blocks

__all__ = [
    "Call",
    "CallBody",
    "CallView",
    "Item",
    "ItemKind",
    "MessageProblem",
    "anthropic_request",
    "call_of",
    "call_view",
    "calls_by_id",
    "check_alternation",
    "check_messages",
    "check_tool_pairs",
    "edit_diff",
    "estimate_tokens",
    "is_sidechain",
    "merge_consecutive",
    "openai_request",
    "quick_estimate",
    "result_call",
    "result_text",
    "sanitize_messages",
    "sanitize_text",
    "turn_items",
    "use_counter",
    "walk_blocks",
]
