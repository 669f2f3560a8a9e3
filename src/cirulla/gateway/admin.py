"""The operator's moderation routes (docs/chat.md): hide a chat message, silence an account.

Off unless CIRULLA_ADMIN_TOKEN is set (then every route answers 404, as if absent);
on, each request must carry `Authorization: Bearer <token>` (compared in constant time).
"""

from __future__ import annotations

import hmac
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..settings import Settings
from ..store import Store
from .chat import chat_service
from .errors import ApiError

__all__ = ["router"]


def operator(request: Request) -> None:
    """FastAPI dependency: the request is the operator's, or it is refused."""
    settings: Settings = request.app.state.settings
    if not settings.admin_token:
        raise ApiError(404, "not_found", "Not Found")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        given.strip().encode(), settings.admin_token.encode()
    ):
        raise ApiError(
            401,
            "not_authorised",
            "the admin routes need Authorization: Bearer <CIRULLA_ADMIN_TOKEN>",
            headers={"WWW-Authenticate": "Bearer"},
        )


router = APIRouter(
    prefix="/api/admin", tags=["admin"], dependencies=[Depends(operator)], include_in_schema=False
)


@router.post("/chat/{message_id}/hide")
async def hide_message(request: Request, message_id: int) -> dict[str, Any]:
    """Hide a message: never sent again, and removed live where it is shown."""
    service = chat_service(request.app)
    row = await service.store.hide(message_id)
    if row is None:
        raise ApiError(404, "unknown_message", f"there is no chat message {message_id}")
    service.hidden(row)
    return {"hidden": row.id, "chat": row.table_id}


@router.post("/users/{name}/silence")
async def silence_user(
    request: Request, name: str, minutes: Annotated[int, Query(ge=0, le=525_600)] = 60
) -> dict[str, Any]:
    """Refuse the account's chat for `minutes` (0 lifts a silence)."""
    store: Store = request.app.state.store
    user = await store.find_user(name)
    if user is None:
        raise ApiError(404, "unknown_user", f"there is no user {name!r}")
    until = datetime.now(UTC) + timedelta(minutes=minutes) if minutes else None
    await chat_service(request.app).store.silence(user.id, until)
    return {"user": user.name, "until": None if until is None else until.isoformat()}
