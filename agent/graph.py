"""The travel assistant's state graph.

    START → retrieve_memories → trim_window → call_model ⇄ run_tools
                                              call_model → extract_memories → END

Memory wraps the tool loop: the window is applied before the model is called, the model and
the tools may go back and forth, and once there is a final answer extract_memories drops the
turn's tool round trips from the kept history, re-applies the window and hands the exchange to
long-term memory. Every component (model, tools, window, long-term memory) is passed in:
nothing here reads settings or opens a connection, so the graph is easy to test and reuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.runtime import Runtime

from agent.context import Context, resolve_context
from agent.errors import ConversationNotFoundError
from agent.long_term import LongTermMemory
from agent.long_term.retrieval import recall_query
from agent.messages import latest_user_text, message_text
from agent.prompts import SYSTEM_PROMPT, system_prompt_with_memories
from agent.short_term.turns import plan_end_of_turn
from agent.short_term.window import WindowPolicy, plan_trim
from agent.state import AgentState

RETRIEVE_MEMORIES = "retrieve_memories"
TRIM_WINDOW = "trim_window"
CALL_MODEL = "call_model"
RUN_TOOLS = "run_tools"
EXTRACT_MEMORIES = "extract_memories"


def build_graph(
    *,
    model: BaseChatModel,
    tools: Sequence[BaseTool],
    window: WindowPolicy,
    long_term: LongTermMemory | None = None,
    keep_tool_messages: bool = False,
    system_prompt: str = SYSTEM_PROMPT,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    name: str = "travel_agent",
) -> CompiledStateGraph[AgentState, Context, AgentState, AgentState]:
    """Wire the nodes around the given components and compile the graph.

    Pass ``checkpointer=None`` when a server (``langgraph dev``) supplies its own.
    """
    bound_model = model.bind_tools(list(tools)) if tools else model

    def retrieve_memories(state: AgentState, *, runtime: Runtime[Context]) -> dict[str, Any]:
        # Resolving the identity first makes a run without a conversation fail here, before
        # the window, the model or long-term memory are touched.
        conversation = resolve_context(runtime.context, get_config())
        owner = state.get("owner")
        if owner is not None and owner != conversation.user_id:
            # someone else's conversation looks exactly like a missing one
            raise ConversationNotFoundError(conversation.conversation_id)
        update: dict[str, Any] = {"owner": conversation.user_id, "recalled_memories": []}
        if long_term is not None:
            query, context = recall_query(state["messages"])
            update["recalled_memories"] = long_term.recall(conversation, query, context)
        return update

    def trim_window(state: AgentState) -> dict[str, Any]:
        return {"messages": plan_trim(window, state["messages"])}

    def call_model(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        request = build_model_request(
            system_prompt, state["messages"], state.get("recalled_memories", [])
        )
        return {"messages": [bound_model.invoke(request, config)]}

    def extract_memories(state: AgentState, *, runtime: Runtime[Context]) -> dict[str, Any]:
        messages = state["messages"]
        if long_term is not None:
            conversation = resolve_context(runtime.context, get_config())
            long_term.record(conversation, latest_user_text(messages), _final_answer(messages))
        return {"messages": plan_end_of_turn(window, messages, keep_tool_messages)}

    builder = StateGraph(AgentState, context_schema=Context)
    builder.add_node(RETRIEVE_MEMORIES, retrieve_memories)
    builder.add_node(TRIM_WINDOW, trim_window)
    builder.add_node(CALL_MODEL, call_model)
    builder.add_node(RUN_TOOLS, ToolNode(list(tools), name=RUN_TOOLS))
    builder.add_node(EXTRACT_MEMORIES, extract_memories)
    builder.add_edge(START, RETRIEVE_MEMORIES)
    builder.add_edge(RETRIEVE_MEMORIES, TRIM_WINDOW)
    builder.add_edge(TRIM_WINDOW, CALL_MODEL)
    builder.add_conditional_edges(
        CALL_MODEL, tools_condition, {"tools": RUN_TOOLS, END: EXTRACT_MEMORIES}
    )
    builder.add_edge(RUN_TOOLS, CALL_MODEL)
    builder.add_edge(EXTRACT_MEMORIES, END)
    return builder.compile(checkpointer=checkpointer, name=name)


def build_model_request(
    system_prompt: str,
    messages: Sequence[BaseMessage],
    recalled_memories: Sequence[dict[str, str]],
) -> list[BaseMessage]:
    """Exactly what one model call is sent: one system message, then the kept messages.

    System messages found in the kept history (a client may send one) are folded into the
    single leading system message, after the agent's own prompt; the memory block comes last.
    """
    stored_system = [message_text(m) for m in messages if isinstance(m, SystemMessage)]
    memories = [(m["memory_type"], m["content"]) for m in recalled_memories]
    system = SystemMessage(system_prompt_with_memories(system_prompt, memories, stored_system))
    return [system, *(m for m in messages if not isinstance(m, SystemMessage))]


def _final_answer(messages: Sequence[BaseMessage]) -> str:
    last = messages[-1] if messages else None
    return message_text(last) if isinstance(last, AIMessage) else ""
