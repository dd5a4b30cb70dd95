/// The dashboard's one style sheet, put unchanged in the page's only `<style>` element so the server
/// can allow it by its SHA-256 hash. The page has no `style=""` attributes.
///
/// Grade colours are AirKorea's customary family: blue 좋음, green 보통, orange 나쁨, red 매우나쁨;
/// `--gN` fills bars, `--gN-ink` is text on the pale `--gN-soft`; the big badge keeps the deeper
/// light-scheme colours in dark mode too, because its text is white.
///
/// Text grows with the reader's setting (WCAG 1.4.4, 1.4.10): the body's size is a percentage of the
/// browser's default, sizes are in rem and em, the tiles of a card stand side by side only while two
/// fit (at most two, so the gases keep their 2 × 2) and stack once the text is too large (a tile's least
/// width is in em: it grows with the default size and with text scaled alone), and a value's unit goes
/// under its number rather than past its tile; the header and the pager wrap rather than run off a phone. Under forced colours (Windows' contrast
/// themes) the grade marks keep their colours, which the chart's bars keep too and the legend names.
enum DashboardStyle {
    static let sheet = """
        :root{color-scheme:light dark;--bg:#f3f4f6;--card:#fff;--text:#17191c;--muted:#5d636b;--line:#e2e5e9;\
        --accent:#1d5fd1;--g1:#2a73e8;--g2:#14934a;--g3:#e8730c;--g4:#d83a3a;--g1-soft:#e8f0fe;--g2-soft:#e4f4ea;\
        --g3-soft:#fdf0e2;--g4-soft:#fce9e9;--g1-ink:#1a56b8;--g2-ink:#0d6d36;--g3-ink:#a14d00;--g4-ink:#b02626;\
        --alert:#fce9e9;--alert-line:#d83a3a;--warn:#fdf3e2;--warn-line:#e8930c;\
        --p0:#1d5fd1;--p1:#c2410c;--p2:#7c3aed;--p3:#0f766e;--p4:#be185d;--p5:#4d7c0f}
        @media (prefers-color-scheme:dark){:root{--bg:#0e1013;--card:#181b1f;--text:#e9ebee;--muted:#9ba2ab;\
        --line:#2b3036;--accent:#7aa7ff;--g1:#4f8ff7;--g2:#2fb866;--g3:#f59a3f;--g4:#f2605d;--g1-soft:#172842;\
        --g2-soft:#132d1e;--g3-soft:#37250f;--g4-soft:#3d1818;--g1-ink:#8db6ff;--g2-ink:#6fd99a;--g3-ink:#ffbd7a;\
        --g4-ink:#ff9a97;--alert:#3a1819;--alert-line:#f2605d;--warn:#33270f;--warn-line:#f59a3f;\
        --p0:#7aa7ff;--p1:#fb923c;--p2:#b794f6;--p3:#2dd4bf;--p4:#f472b6;--p5:#a3e635}}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--text);\
        font:100%/1.5 system-ui,-apple-system,"Apple SD Gothic Neo","Noto Sans KR",sans-serif;\
        font-variant-numeric:tabular-nums;word-break:keep-all;overflow-wrap:break-word}
        .page{max-width:42rem;margin:0 auto;padding:.75rem .75rem 2.5rem}
        @media (min-width:1024px){.page{max-width:72rem;padding:1rem 1.5rem 3rem}\
        main{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1rem;align-items:start}\
        main>.card.hours,main>.card.household,main>.card.week,main>.card.table{grid-column:1/-1}\
        .card .chart{max-height:19rem;width:auto;max-width:100%;margin-left:auto;margin-right:auto}}
        a{color:var(--accent)}
        .top{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem 1rem;font-size:.875rem}
        .brand{color:var(--muted);font-weight:600;text-decoration:none;letter-spacing:.01em}
        .lang{color:var(--text);text-decoration:none;border:1px solid var(--line);border-radius:999px;\
        padding:.25rem .75rem;background:var(--card)}
        .notices{margin:.75rem 0 0}
        .notice{margin:0 0 .5rem;padding:.75rem 1rem;border-radius:.75rem;border-left:4px solid var(--alert-line);\
        background:var(--alert)}
        .notice.warn{border-left-color:var(--warn-line);background:var(--warn)}
        .notice .detail{display:block;margin-top:.25rem;font-size:.875rem;color:var(--muted)}
        .heading{margin:1rem 0 .75rem}
        h1{font-size:1.75rem;line-height:1.2;margin:0;font-weight:700}
        h1 .who{display:block;font-size:1.05rem;font-weight:700;color:var(--accent);margin-bottom:.125rem}
        .people a[aria-current]{background:var(--accent);color:var(--bg);font-weight:700}
        .subtitle{margin:.25rem 0 0;color:var(--muted)}
        .pager{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0 1rem}
        .people a{flex:1 1 auto;overflow-wrap:anywhere}
        .pager a,.pager span{flex:1;text-align:center;padding:.5rem .25rem;border-radius:.75rem;background:var(--card);\
        border:1px solid var(--line);text-decoration:none;font-size:.875rem;color:var(--text)}
        .pager span{color:var(--muted);border-style:dashed}
        .card{background:var(--card);border:1px solid var(--line);border-radius:1rem;padding:1rem .875rem;margin:0 0 .875rem}
        h2{font-size:1rem;margin:0 0 .75rem;font-weight:700}
        h2 .aside,h3 .aside{font-weight:400;color:var(--muted)}
        h3{font-size:.9375rem;margin:0 0 .25rem;font-weight:600}
        p{margin:0}
        .badge{border-radius:1rem;padding:1.25rem 1rem;color:#fff;text-align:center;margin:0 0 .75rem;background:var(--muted)}
        .badge .word{display:block;font-size:max(min(2.75rem,11vw),2rem);line-height:1.1;font-weight:800;letter-spacing:-.01em;overflow-wrap:anywhere}
        .badge .advice{display:block;margin-top:.375rem;font-size:.9375rem;opacity:.95}
        .badge.g1{background:#1f66d6}.badge.g2{background:#107c41}.badge.g3{background:#a8520a}.badge.g4{background:#c43030}
        .pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,max(7.5em,calc(50% - .4375rem))),1fr));gap:.625rem}
        .tile{background:var(--bg);border-radius:.75rem;padding:.75rem .625rem;min-width:0}
        .caption{font-size:.8125rem;color:var(--muted);margin:.25rem 0 0}
        .value{font-size:1.75rem;font-weight:700;line-height:1.2;margin:.125rem 0 .25rem}
        .value.compact{font-size:1.375rem}
        .unit{display:inline-block;font-size:.8125rem;font-weight:400;color:var(--muted);margin-left:.125rem}
        .chip{display:inline-block;padding:.0625rem .5rem;border-radius:999px;font-size:.8125rem;font-weight:700;\
        background:var(--line);color:var(--muted)}
        .chip.g1{background:var(--g1-soft);color:var(--g1-ink)}.chip.g2{background:var(--g2-soft);color:var(--g2-ink)}\
        .chip.g3{background:var(--g3-soft);color:var(--g3-ink)}.chip.g4{background:var(--g4-soft);color:var(--g4-ink)}
        .facts{margin:.625rem 0 0;font-size:.875rem}
        .facts div{display:flex;flex-wrap:wrap;justify-content:space-between;column-gap:.5rem;margin:0 0 .125rem}
        .facts dt{color:var(--muted)}
        .facts dd{margin:0 0 0 auto;text-align:right}
        .over{color:var(--g4-ink);font-weight:600}
        .within{color:var(--g2-ink)}
        .ppm.g1{color:var(--g1-ink)}.ppm.g2{color:var(--g2-ink)}.ppm.g3{color:var(--g3-ink)}.ppm.g4{color:var(--g4-ink)}
        .note{margin:.75rem 0 0;font-size:.8125rem;color:var(--muted)}
        .empty{color:var(--muted);margin:0}
        .chart{display:block;width:100%;height:auto;margin:0 0 .5rem;overflow:visible}
        .chart text{font-size:11px;fill:var(--muted)}
        .chart .title{font-size:11px;font-weight:600;fill:var(--text)}
        .chart .axis{stroke:var(--line);stroke-width:1}
        .chart .grid{stroke:var(--line);stroke-width:.5}
        .chart .who{stroke:var(--text);stroke-width:1;stroke-dasharray:4 3;opacity:.7}
        .chart .who-label{font-size:9px;fill:var(--text);paint-order:stroke;stroke:var(--card);stroke-width:3px;stroke-linejoin:round}
        .chart .future{fill:var(--line);opacity:.45}
        .chart .band{fill:var(--accent);opacity:.1}
        .chart .amount{font-size:9.5px;fill:var(--text)}
        .chart .today .label{fill:var(--accent);font-weight:700}
        .chart a:focus-visible .band,.chart a:hover .band{opacity:.18}
        .bar{fill:var(--muted)}
        .bar.g1{fill:var(--g1)}.bar.g2{fill:var(--g2)}.bar.g3{fill:var(--g3)}.bar.g4{fill:var(--g4)}
        .bar.indoor{fill:var(--p3)}.chart .away{fill:var(--line);opacity:.35}
        .chart .outdoor{fill:none;stroke:var(--p1);stroke-width:1.75;stroke-linejoin:round}
        .swatch.indoor{background:var(--p3)}.swatch.outdoor{background:var(--p1)}.swatch.away{background:var(--line)}
        .person.p0{fill:var(--p0)}.person.p1{fill:var(--p1)}.person.p2{fill:var(--p2)}.person.p3{fill:var(--p3)}\
        .person.p4{fill:var(--p4)}.person.p5{fill:var(--p5)}
        .legend{display:flex;flex-wrap:wrap;gap:.25rem .875rem;list-style:none;padding:0;margin:0;font-size:.8125rem;\
        color:var(--muted)}
        .swatch{display:inline-block;width:.75rem;height:.75rem;border-radius:.1875rem;margin-right:.3125rem;\
        vertical-align:-.0625rem;background:var(--muted)}
        .swatch.g1{background:var(--g1)}.swatch.g2{background:var(--g2)}.swatch.g3{background:var(--g3)}\
        .swatch.g4{background:var(--g4)}
        .swatch.future{background:var(--line)}
        .swatch.who{height:0;border-top:2px dashed var(--text);border-radius:0;background:none;vertical-align:.1875rem}
        details{margin:.75rem 0 0}
        summary{cursor:pointer;color:var(--accent);font-size:.875rem}
        .scroll{overflow-x:auto}
        table{width:100%;border-collapse:collapse;font-size:.8125rem;margin:.5rem 0 0}
        th,td{padding:.375rem .375rem;text-align:right;border-bottom:1px solid var(--line);vertical-align:top}
        th:first-child,td:first-child{text-align:left;padding-left:0}
        th:last-child,td:last-child{padding-right:0}
        thead th{color:var(--muted);font-weight:600}
        tbody th{font-weight:600;white-space:nowrap}
        tfoot th,tfoot td{border-bottom:0;font-weight:700}
        th .offset{display:block;font-weight:400;font-size:.75rem;color:var(--muted)}
        td.flags{text-align:left;color:var(--muted)}
        .days td .sub{display:block;color:var(--muted);font-weight:400}
        .days tr.today th a{font-weight:800}
        .dot{display:inline-block;width:.5rem;height:.5rem;border-radius:50%;margin-right:.3125rem;vertical-align:.0625rem;\
        background:var(--line)}
        .dot.g1{background:var(--g1)}.dot.g2{background:var(--g2)}.dot.g3{background:var(--g3)}.dot.g4{background:var(--g4)}
        .more{display:inline-block;margin:.75rem 0 0;font-size:.875rem}
        footer{margin:1.5rem 0 0;font-size:.8125rem;color:var(--muted)}
        footer p{margin:0 0 .375rem}
        @media (forced-colors:active){.swatch,.dot{forced-color-adjust:none}.swatch.who{border-top-color:CanvasText}}
        @media (min-width:40rem){.page{padding:1.5rem 1rem 3rem}h1{font-size:2rem}.card{padding:1.25rem 1.5rem}.pair{gap:.875rem}.tile{padding:1rem}\
        .badge .word{font-size:3.25rem}.chart text,.chart .title{font-size:8px}.chart .who-label,.chart .amount{font-size:7.5px}}
        """
}
