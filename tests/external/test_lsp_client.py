"""sycl-analyzer's language server driven by pytest-lsp, an LSP client nobody here wrote."""

import asyncio
import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vector-math"
BINARY = os.environ.get("SYCL_ANALYZER_BIN", str(ROOT / "target" / "debug" / "sycl-analyzer"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=EXAMPLE.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


async def diagnostics_for(client: LanguageClient, uri: str):
    for _ in range(200):
        if client.diagnostics.get(uri):
            return client.diagnostics[uri]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri}")


@pytest.mark.asyncio
async def test_chain_hover_and_fix(client: LanguageClient):
    main = EXAMPLE / "src" / "main.cpp"
    uri = main.as_uri()
    text = main.read_text()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="cpp", version=1, text=text)
        )
    )
    diagnostics = await diagnostics_for(client, uri)
    mismatch = [d for d in diagnostics if d.code == "aspect-mismatch"]
    assert len(mismatch) == 1
    assert mismatch[0].source == "sycl-analyzer"
    related = mismatch[0].related_information
    assert [r.message for r in related][-1] == "uses 'double literal 0.5' here"
    assert related[-1].location.uri.endswith("/blend.hpp")

    line = text.splitlines()[16]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=16, character=line.index("fp16") + 1),
        )
    )
    assert "`sycl::aspect::fp16` = 5" in hover.contents.value

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=mismatch[0].range,
            context=types.CodeActionContext(diagnostics=mismatch),
        )
    )
    titles = [a.title for a in actions]
    assert "Add 'fp64' to the device_has list" in titles
