"""A real HTTP server on 127.0.0.1 that speaks the upload endpoints the SDKs call.

- OpenAI ``POST /v1/files`` and Anthropic ``POST /v1/files`` (multipart form, told apart by the
  ``anthropic-version`` header the Anthropic SDK always sends);
- Gemini's resumable protocol: ``POST /upload/v1beta/files`` (or ``v1``) (start, answers with an
  ``X-Goog-Upload-URL``), then ``POST`` of the bytes to that URL (``upload, finalize``), and
  ``GET /v1beta/files/<name>`` for the state;
- S3 ``PUT /<bucket>/<key>`` (path-style, as botocore sends to a custom endpoint);
- the look-ups `mb.upload` makes to check a cached reference still exists: OpenAI and Anthropic
  ``GET /v1/files/<id>``, Gemini ``GET /v1beta/files/<name>``, S3 ``HEAD /<bucket>/<key>``;
  ``server.delete(reference)`` makes a file vanish as if the provider had deleted it;
- listing and deleting, as each SDK does it: OpenAI and Anthropic ``GET /v1/files`` and
  ``DELETE /v1/files/<id>``, Gemini ``GET /v1beta/files`` and ``DELETE /v1beta/files/<name>``,
  S3 ``GET /<bucket>?list-type=2`` (ListObjectsV2), ``GET /<bucket>/<key>`` (the object) and
  ``DELETE /<bucket>/<key>``; OpenAI's ``expires_after`` form fields are read and answered with
  the file's ``expires_at``.

Every upload is recorded in ``server.received`` as ``(api, bytes, info)``; look-ups in
``server.checks`` as ``(api, name)``; deletions in ``server.deletions``. ``server.files`` holds
what each store keeps now (``{"openai": {id: bytes}, "anthropic": ..., "gemini": {name: bytes},
"s3": {"bucket/key": bytes}}``). ``server.delay`` seconds are slept before answering an upload
(so concurrent callers overlap).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from xml.sax.saxutils import escape

_OWN = object()
"""`UploadServer.reference` by default: each upload answers with its own id or URI."""


class UploadServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[tuple[str, bytes, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.fail_next = 0
        self.fail_status = 400  # what a failing OpenAI/Anthropic upload answers, and its headers
        self.fail_headers: dict[str, str] = {}
        self.processing_polls = 0  # Gemini: answer PROCESSING this many times before ACTIVE
        self.sessions: dict[str, dict[str, Any]] = {}
        self.checks: list[tuple[str, str]] = []
        self.deleted: set[str] = set()
        self.objects: set[str] = set()  # S3 "bucket/key"
        self.files: dict[str, dict[str, bytes]] = {
            "openai": {},
            "anthropic": {},
            "gemini": {},
            "s3": {},
        }
        self.deletions: list[tuple[str, str]] = []
        self.delay = 0.0
        self.reference: Any = _OWN  # what uploads answer as their id / uri (None: a broken SDK)

    def delete(self, reference: str) -> None:
        """Forget a file: its id, Gemini name or ``s3://`` key (the last path part will do)."""
        last = reference.rstrip("/").rsplit("/", 1)[-1]
        with self.lock:
            self.deleted.add(last)
            for store in self.files.values():
                for name in [n for n in store if n.rsplit("/", 1)[-1] == last]:
                    del store[name]

    def remaining(self) -> dict[str, list[str]]:
        """The files each store still holds, by name."""
        with self.lock:
            return {api: sorted(files) for api, files in self.files.items()}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def apis(self) -> list[str]:
        return [api for api, _, _ in self.received]


def _multipart(content_type: str, body: bytes) -> dict[str, tuple[bytes, dict[str, str]]]:
    """Form fields -> (bytes, {"filename", "content_type"})."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    fields: dict[str, tuple[bytes, dict[str, str]]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        info = {
            "filename": part.get_filename() or "",
            "content_type": part.get_content_type(),
        }
        fields[str(name)] = (payload if isinstance(payload, bytes) else b"", info)
    return fields


class _Handler(BaseHTTPRequestHandler):
    server: UploadServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, item in (headers or {}).items():
            self.send_header(key, item)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, api: str, data: bytes, info: dict[str, Any]) -> int:
        if self.server.delay and api != "gemini-get":
            time.sleep(self.server.delay)
        with self.server.lock:
            self.server.received.append((api, data, info))
            return len(self.server.received)

    def _reference(self, own: str) -> Any:
        """The id or URI an upload answers with: its own, or what the test set."""
        chosen = self.server.reference
        return own if chosen is _OWN else chosen

    def _failing(self) -> bool:
        with self.server.lock:
            if self.server.fail_next > 0:
                self.server.fail_next -= 1
                return True
        return False

    def do_POST(self) -> None:
        body = self._body()
        path = self.path.split("?", 1)[0]
        if path == "/v1/files":
            self._files(body)
        elif path in ("/upload/v1beta/files", "/upload/v1/files"):
            session = f"s{len(self.server.sessions) + 1}"
            meta = dict(json.loads(body or b"{}").get("file", {}))
            meta["mimeType"] = self.headers.get("X-Goog-Upload-Header-Content-Type")
            self.server.sessions[session] = meta
            self._json(200, {}, {"X-Goog-Upload-URL": f"{self.server.url}/upload/go/{session}"})
        elif path.startswith("/upload/go/"):
            self._gemini_bytes(path.rsplit("/", 1)[-1], body)
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def _files(self, body: bytes) -> None:
        anthropic = "anthropic-version" in self.headers
        if self._failing():
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
            body = error if anthropic else {"error": {"message": "bad file"}}
            self._json(self.server.fail_status, body, self.server.fail_headers)
            return
        fields = _multipart(self.headers["Content-Type"], body)
        data, info = fields["file"]
        info["beta"] = self.headers.get("anthropic-beta", "")
        if not anthropic:
            info["purpose"] = fields["purpose"][0].decode()
            if "expires_after[seconds]" in fields:
                info["expires_after"] = {
                    "anchor": fields["expires_after[anchor]"][0].decode(),
                    "seconds": int(fields["expires_after[seconds]"][0]),
                }
        number = self._record("anthropic" if anthropic else "openai", data, info)
        name = f"file_{number:04d}" if anthropic else f"file-{number:04d}"
        with self.server.lock:
            self.server.files["anthropic" if anthropic else "openai"][name] = data
        if anthropic:
            self._json(
                200,
                {
                    "id": self._reference(f"file_{number:04d}"),
                    "type": "file",
                    "filename": info["filename"],
                    "mime_type": info["content_type"],
                    "size_bytes": len(data),
                    "created_at": "2026-01-01T00:00:00Z",
                    "downloadable": False,
                },
            )
        else:
            created = int(time.time())
            answer = {
                "id": self._reference(f"file-{number:04d}"),
                "object": "file",
                "bytes": len(data),
                "created_at": created,
                "filename": info["filename"],
                "purpose": info["purpose"],
                "status": "processed",
            }
            if "expires_after" in info:
                answer["expires_at"] = created + info["expires_after"]["seconds"]
            self._json(200, answer)

    def _gemini_file(self, name: str, state: str) -> dict[str, Any]:
        meta = self.server.sessions.get(name, {})
        return {
            "name": f"files/{name}",
            "uri": self._reference(
                f"https://generativelanguage.googleapis.com/v1beta/files/{name}"
            ),
            "mimeType": meta.get("mimeType", "application/octet-stream"),
            "displayName": meta.get("displayName", ""),
            "state": state,
            "expirationTime": "2099-01-01T00:00:00Z",
        }

    def _gemini_bytes(self, session: str, body: bytes) -> None:
        command = self.headers.get("X-Goog-Upload-Command", "")
        info = {
            "command": command,
            "offset": self.headers.get("X-Goog-Upload-Offset"),
            **self.server.sessions.get(session, {}),
        }
        self._record("gemini", body, info)
        with self.server.lock:
            self.server.files["gemini"][session] = body
        state = "PROCESSING" if self.server.processing_polls else "ACTIVE"
        file = self._gemini_file(session, state)
        self._json(200, {"file": file}, {"x-goog-upload-status": "final"})

    def _gone(self, api: str, name: str) -> bool:
        with self.server.lock:
            self.server.checks.append((api, name))
            return name in self.server.deleted

    def do_HEAD(self) -> None:
        path = self.path.lstrip("/").split("?", 1)[0]
        gone = self._gone("s3", path.rsplit("/", 1)[-1]) or path not in self.server.objects
        self.send_response(404 if gone else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        google = "x-goog-api-key" in self.headers
        if path == "/v1/files" and not google:
            self._list_files("anthropic" if "anthropic-version" in self.headers else "openai")
        elif path in ("/v1beta/files", "/v1/files"):
            with self.server.lock:
                names = sorted(self.server.files["gemini"])
            self._json(200, {"files": [self._gemini_file(name, "ACTIVE") for name in names]})
        elif "list-type=2" in query:
            self._s3_list(path.strip("/"), query)
        elif path.count("/") >= 2 and not path.startswith(("/v1/", "/v1beta/", "/upload/")):
            self._s3_get(path.lstrip("/"))
        elif path.startswith("/v1/files/") and "anthropic-version" in self.headers:
            name = path.rsplit("/", 1)[-1]
            if self._gone("anthropic", name):
                error = {"type": "not_found_error", "message": f"File not found: {name}"}
                self._json(404, {"type": "error", "error": error})
                return
            self._json(
                200,
                {
                    "id": name,
                    "type": "file",
                    "filename": "f",
                    "mime_type": "application/pdf",
                    "size_bytes": 1,
                    "created_at": "2026-01-01T00:00:00Z",
                },
            )
        elif path.startswith("/v1/files/") and path.count("/") == 3 and "file-" in path:
            name = path.rsplit("/", 1)[-1]
            if self._gone("openai", name):
                self._json(404, {"error": {"message": f"No such File object: {name}"}})
                return
            self._json(
                200,
                {
                    "id": name,
                    "object": "file",
                    "bytes": 1,
                    "created_at": 1767225600,
                    "filename": "f",
                    "purpose": "user_data",
                    "status": "processed",
                },
            )
        elif path.startswith(("/v1beta/files/", "/v1/files/")):
            name = path.rsplit("/", 1)[-1]
            if self._gone("gemini", name):
                message = "You do not have permission to access the File or it may not exist."
                self._json(
                    403, {"error": {"code": 403, "message": message, "status": "PERMISSION_DENIED"}}
                )
                return
            with self.server.lock:
                waiting = self.server.processing_polls > 0
                if waiting:
                    self.server.processing_polls -= 1
            self._record("gemini-get", b"", {"name": name})
            still = waiting and self.server.processing_polls > 0
            self._json(200, self._gemini_file(name, "PROCESSING" if still else "ACTIVE"))
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def _list_files(self, api: str) -> None:
        with self.server.lock:
            names = sorted(self.server.files[api])
            sizes = {name: len(self.server.files[api][name]) for name in names}
        if api == "openai":
            data = [
                {
                    "id": name,
                    "object": "file",
                    "bytes": sizes[name],
                    "created_at": 1767225600,
                    "filename": "f",
                    "purpose": "user_data",
                    "status": "processed",
                }
                for name in names
            ]
            self._json(200, {"object": "list", "data": data, "has_more": False})
            return
        data = [
            {
                "id": name,
                "type": "file",
                "filename": "f",
                "mime_type": "application/octet-stream",
                "size_bytes": sizes[name],
                "created_at": "2026-01-01T00:00:00Z",
            }
            for name in names
        ]
        first, last = (names[0], names[-1]) if names else (None, None)
        self._json(200, {"data": data, "has_more": False, "first_id": first, "last_id": last})

    def _xml(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _s3_list(self, bucket: str, query: str) -> None:
        from urllib.parse import parse_qs

        prefix = parse_qs(query).get("prefix", [""])[0]
        with self.server.lock:
            keys = sorted(
                (name.split("/", 1)[1], len(data))
                for name, data in self.server.files["s3"].items()
                if name.startswith(f"{bucket}/{prefix}")
            )
        contents = "".join(
            f"<Contents><Key>{escape(key)}</Key><Size>{size}</Size>"
            "<LastModified>2026-01-01T00:00:00.000Z</LastModified>"
            '<ETag>"0123456789abcdef"</ETag><StorageClass>STANDARD</StorageClass></Contents>'
            for key, size in keys
        )
        self._xml(
            200,
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>{escape(bucket)}</Name><Prefix>{escape(prefix)}</Prefix>"
            f"<KeyCount>{len(keys)}</KeyCount><MaxKeys>1000</MaxKeys>"
            f"<IsTruncated>false</IsTruncated>{contents}</ListBucketResult>",
        )

    def _s3_get(self, name: str) -> None:
        with self.server.lock:
            data = self.server.files["s3"].get(name)
        if data is None:
            self._xml(
                404,
                "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist."
                f"</Message><Key>{escape(name)}</Key></Error>",
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", '"0123456789abcdef"')
        self.end_headers()
        self.wfile.write(data)

    def do_DELETE(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/v1/files/") and "x-goog-api-key" not in self.headers:
            api = "anthropic" if "anthropic-version" in self.headers else "openai"
            self._delete_file(api, path.rsplit("/", 1)[-1])
        elif path.startswith(("/v1beta/files/", "/v1/files/")):
            self._delete_file("gemini", path.rsplit("/", 1)[-1])
        else:
            name = path.lstrip("/")
            with self.server.lock:
                self.server.deletions.append(("s3", name))
                self.server.files["s3"].pop(name, None)
                self.server.objects.discard(name)
            self.send_response(204)
            self.end_headers()

    def _delete_file(self, api: str, name: str) -> None:
        with self.server.lock:
            self.server.deletions.append((api, name))
            found = self.server.files[api].pop(name, None) is not None
        if not found:
            if api == "gemini":
                message = "You do not have permission to access the File or it may not exist."
                error = {"error": {"code": 403, "message": message, "status": "PERMISSION_DENIED"}}
                self._json(403, error)
            elif api == "anthropic":
                error = {"type": "not_found_error", "message": f"File not found: {name}"}
                self._json(404, {"type": "error", "error": error})
            else:
                self._json(404, {"error": {"message": f"No such File object: {name}"}})
            return
        if api == "openai":
            self._json(200, {"id": name, "object": "file", "deleted": True})
        elif api == "anthropic":
            self._json(200, {"id": name, "type": "file_deleted"})
        else:
            self._json(200, {})

    def do_PUT(self) -> None:
        body = self._body()
        if self._failing():
            data = b"<Error><Code>AccessDenied</Code><Message>denied</Message></Error>"
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        bucket, _, key = self.path.lstrip("/").split("?", 1)[0].partition("/")
        info = {"bucket": bucket, "key": key, "content_type": self.headers.get("Content-Type")}
        self._record("s3", body, info)
        with self.server.lock:
            self.server.objects.add(f"{bucket}/{key}")
            self.server.files["s3"][f"{bucket}/{key}"] = body
            self.server.deleted.discard(key.rsplit("/", 1)[-1])
        self.send_response(200)
        self.send_header("ETag", '"0123456789abcdef"')
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextmanager
def running() -> Iterator[UploadServer]:
    server = UploadServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
