/** The console's one stylesheet, served at /console.css (a file of its own: the CSP allows no inline style). */
export const CONSOLE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2228; background: #f6f7f9; }
header { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; padding: .6em 1em; background: #1d2b3a; color: #fff; }
header a { color: #cfe3ff; margin-right: .8em; text-decoration: none; }
header a:hover { text-decoration: underline; }
header form { margin: 0; }
.search input[type=search] { width: 22em; }
.logout { margin-left: auto; }
main { padding: 1em 1.5em; }
h1 { font-size: 1.4em; margin: .2em 0 .6em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; background: #fff; margin-bottom: 1em; }
th, td { border: 1px solid #d7dce2; padding: .3em .6em; text-align: left; vertical-align: top; max-width: 40em; overflow-wrap: anywhere; }
th { background: #eef1f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.state { padding: .1em .4em; border-radius: 3px; background: #e4e7eb; white-space: nowrap; }
.state-accepted { background: #d3f2dc; }
.state-failed, .state-rejected, .state-invalid { background: #f9d6d5; }
.state-in-doubt { background: #fde9c4; }
.state-pending, .state-sending { background: #dbe8fb; }
.notice { background: #fff; border-left: 4px solid #2f7d4f; padding: .5em 1em; }
.warning { background: #fff; border-left: 4px solid #c77700; padding: .5em 1em; }
.muted { color: #69727d; }
.actions form { display: inline-block; margin: 0 .6em .6em 0; padding: .5em; background: #fff; border: 1px solid #d7dce2; }
pre { background: #fff; border: 1px solid #d7dce2; padding: .6em; overflow: auto; max-height: 30em; }
.pager a { margin-right: 1em; }
`;
