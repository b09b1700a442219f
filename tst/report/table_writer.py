"""The one table writer: a Table (its tidy data and its display) written as {name}.csv (the data), {name}.md,
{name}.tex (booktabs) and {name}.html (shown inside the Snakemake report, with links that download the other
three). The papers' tables that fill it: tst.report.tables."""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tst.report.contents import TABLE_FORMATS


@dataclass
class Table:
    name: str  # file stem
    caption: str
    data: pd.DataFrame  # the tidy CSV
    columns: list[str]  # display headers (Markdown, LaTeX, HTML)
    rows: list[list[str]] = field(default_factory=list)  # display cells
    notes: list[str] = field(default_factory=list)  # footnotes: definitions, flags
    empty: str = ""  # when set: the one-line reason the table has no rows
    sortable: bool = False  # html: a click on a header sorts the rows by that column (_SORT)


def fmt(x, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{d}f}"


def fmt_mean_sd(mean: float, sd: float, d: int = 3) -> str:
    """'mean ± sd' (just the mean when sd is undefined, i.e. one seed)."""
    if mean is None or math.isnan(mean):
        return ""
    return fmt(mean, d) if sd is None or math.isnan(sd) else f"{fmt(mean, d)} ± {fmt(sd, d)}"


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "±": r"$\pm$",
    "−": "$-$",
    "†": r"$\dagger$",
    "‡": r"$\ddagger$",
    "ρ": r"$\rho$",
    "τ": r"$\tau$",
    "×": r"$\times$",
    "α": r"$\alpha$",
    "≈": r"$\approx$",
    "…": r"\ldots{}",
    "–": "--",
    "—": "---",
    "·": r"$\cdot$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "✓": r"$\checkmark$",
    "✗": r"$\times$",
    "◦": r"$\circ$",
    "½": r"$\frac{1}{2}$",
}


def tex_escape(s: str) -> str:
    """LaTeX text of s; characters outside ASCII without a mapping become '?' so the file always compiles."""
    return "".join(_TEX.get(c, c if c.isascii() else "?") for c in str(s))


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _markdown(t: Table) -> str:
    if t.empty:
        return f"{t.caption} {t.empty}\n"
    md = [
        f"**{_md_cell(t.caption)}**",
        "",
        "| " + " | ".join(_md_cell(c) for c in t.columns) + " |",
        "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(t.columns))) + "|",
    ]
    md += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows]
    md += [""] + [f"- {_md_cell(n)}" for n in t.notes]
    return "\n".join(md).rstrip() + "\n"


def _latex(t: Table) -> str:
    """A table float for a document that loads booktabs; footnotes under the tabular."""
    if t.empty:
        return f"% {tex_escape(t.caption)} {tex_escape(t.empty)}\n"
    tex = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        r"\caption{" + tex_escape(t.caption) + "}",
        r"\label{tab:" + t.name.replace("_", "-") + "}",
        r"\begin{tabular}{l" + "r" * (len(t.columns) - 1) + "}",
        r"\toprule",
        " & ".join(tex_escape(c) for c in t.columns) + r" \\",
        r"\midrule",
    ]
    tex += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in t.rows]
    tex += [r"\bottomrule", r"\end{tabular}"]
    if t.notes:
        tex += [r"\par\smallskip\footnotesize", r"\begin{minipage}{0.95\linewidth}"]
        tex += [tex_escape(n) + r"\par" for n in t.notes]
        tex += [r"\end{minipage}"]
    tex += [r"\end{table}"]
    return "\n".join(tex) + "\n"


_CSS = (
    "body{font-family:sans-serif;font-size:13px;margin:34px 8px 8px}caption{font-weight:bold;text-align:left;"
    "padding-bottom:6px}table{border-collapse:collapse}th,td{padding:3px 8px;text-align:right;"
    "border-bottom:1px solid #ddd}th{border-bottom:2px solid #333}th:first-child,td:first-child"
    "{text-align:left}ol{font-size:12px;color:#333;padding-left:18px}.downloads{font-size:12px}"
    "table.sortable th{cursor:pointer;white-space:nowrap}table.sortable td{white-space:nowrap}table.sortable th::after{content:' \\21C5';color:#999}"
    ".hint{font-weight:normal;color:#555}"
    # a table wider than the window scrolls in its own box, its first column (the system) staying in view; the
    # caption and the notes (the signature: one long word) wrap to the window
    ".wide{overflow-x:auto;max-width:100%}caption{position:sticky;left:0;max-width:calc(100vw - 32px)}"
    "table.sortable th:first-child,table.sortable td:first-child{position:sticky;left:0;background:#fff;z-index:1}"
    "ol{overflow-wrap:anywhere}"
)


# Sortable html tables: a click on a header sorts by that column, by the number a cell starts with (text when
# none; blank cells last): best first on the first click (descending under ↑, ascending otherwise), a second
# click reverses.
_SORT = (
    "<script>document.querySelectorAll('table.sortable th').forEach((th,i)=>{th.style.cursor='pointer';"
    "th.title='sort';th.onclick=()=>{const b=th.closest('table').tBodies[0],d=th.dataset.d=th.dataset.d?"
    "String(-th.dataset.d):th.textContent.includes('\u2191')?'-1':'1',v=r=>{const t=r.cells[i].textContent.trim(),n=parseFloat(t);return t===''?null:isNaN(n)?t:n};"
    "[...b.rows].sort((x,y)=>{const p=v(x),q=v(y);if(p===null||q===null)return (p===null)-(q===null);"
    "return (p<q?-1:p>q?1:0)*d}).forEach(r=>b.appendChild(r))}})</script>"
)


# What each download link of an html table is called, and its media type.
_DOWNLOADS = {
    "csv": ("CSV (tidy data)", "text/csv"),
    "md": ("Markdown", "text/markdown"),
    "tex": ("LaTeX (booktabs)", "text/x-tex"),
}


def _download_links(name: str, files: dict[str, str]) -> str:
    """A line of links that download the table's other formats (files: extension -> text), each embedded as a
    data URI so the links work inside the self-contained Snakemake report."""
    e = html.escape
    links = [
        f'<a download="{e(name)}.{ext}" href="data:{_DOWNLOADS[ext][1]};charset=utf-8;base64,'
        f'{base64.b64encode(text.encode("utf-8")).decode("ascii")}">{_DOWNLOADS[ext][0]}</a>'
        for ext, text in files.items()
    ]
    return f'<p class="downloads">Download: {" · ".join(links)}</p>' if links else ""


def _html(t: Table, files: dict[str, str] | None = None) -> str:
    """The display as an html page (files: the other formats' text by extension, linked for download)."""
    e = html.escape
    body = (
        [f"<p>{e(t.caption)} <b>{e(t.empty)}</b></p>", _download_links(t.name, files or {})]
        if t.empty
        else [
            _download_links(t.name, files or {}),
            f"<div class=wide><table{' class=sortable' if t.sortable else ''}><caption>{e(t.caption)}"
            + (" <span class=hint>Click a column header to sort by it.</span>" if t.sortable else "")
            + "</caption>",
            "<thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in t.columns) + "</tr></thead><tbody>",
            *("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>" for row in t.rows),
            "</tbody></table></div>",
            "<ol>" + "".join(f"<li>{e(n)}</li>" for n in t.notes) + "</ol>" if t.notes else "",
            _SORT if t.sortable else "",
        ]
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>'
        + e(t.name)
        + "</title><style>"
        + _CSS
        + "</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


EXTENSIONS = TABLE_FORMATS


def write_table(table: Table, out_dir: str | Path) -> list[Path]:
    """Write {name}.csv (table.data), .md, .tex and .html (the display, with links that download the other
    three) under out_dir; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{table.name}.{ext}" for ext in EXTENSIONS]
    files = {
        "csv": table.data.to_csv(index=False, lineterminator="\n"),
        "md": _markdown(table),
        "tex": _latex(table),
    }
    texts = {**files, "html": _html(table, files)}
    for path, ext in zip(paths, EXTENSIONS):
        path.write_text(texts[ext], encoding="utf-8")
    return paths
