"""The Num Project web app (issue 24), built by deploy/ensure-app.sh into `dist/` and served
at `/` by :mod:`api.web.routes`."""
