"""A newcomer's upload endpoint (FastAPI): every mediablocks error becomes an HTTP status by its
code alone. Type-checked, not run, by tests/test_typing_user_program.py."""

from __future__ import annotations

from fastapi import FastAPI, Request, UploadFile
from fastapi.responses import JSONResponse

import mediablocks as mb
from mediablocks.errors import HTTP_STATUS

app = FastAPI()


@app.exception_handler(mb.MediaBlocksError)
def media_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, mb.MediaBlocksError)
    code: str = error.code
    status: int = HTTP_STATUS.get(code, 500)
    problems: list[dict[str, str]] = []
    if isinstance(error, mb.DoesNotFitError):
        problems = [{"code": p.code, "detail": str(p)} for p in error.problems]
        status = error.http_status
    return JSONResponse({"code": code, "detail": str(error), "problems": problems}, status)


@app.post("/describe")
def describe(file: UploadFile) -> dict[str, int]:
    upload = mb.media_block(file.file.read(), filename=file.filename)
    blocks: list[mb.Block] = [mb.TextBlock(text="Describe this file."), upload]
    messages = mb.prepare(
        [mb.UserMessage(content=blocks)], "anthropic", accept=["image", "application/pdf"]
    )
    fields = mb.encode(messages, "anthropic")
    tokens: int = mb.estimate_tokens(messages, "anthropic")
    return {"messages": len(fields["messages"]), "tokens": tokens}


def retry_in(error: mb.UploadError | mb.FetchError) -> float:
    status: int | None = error.status
    return error.retry_after or (1.0 if status in (429, 503) else 0.0)
