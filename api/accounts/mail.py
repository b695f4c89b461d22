"""Email over SMTP (aiosmtplib): verification links and password resets.

Sending happens in the background, after the answer: a reset request answers alike and in a
similar time whether or not a message leaves. With no `NUMRULES_SMTP_HOST` the mailer logs
once that email is disabled and sends nothing; it never logs a message's text (it holds a
token) nor the recipient.
"""

from __future__ import annotations

import asyncio
import logging
from email.message import EmailMessage

import aiosmtplib

from api.ops.settings import Settings

log = logging.getLogger("numrules.mail")


class Mailer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._tasks: set[asyncio.Task[None]] = set()
        self._warned = False
        self.sent = 0
        self.failed = 0

    @property
    def enabled(self) -> bool:
        return bool(self.settings.smtp_host)

    def send_later(self, to: str, subject: str, text: str) -> None:
        """Queue one message; the caller does not wait for the SMTP server."""
        if not self.enabled:
            if not self._warned:
                log.warning("email is disabled (no NUMRULES_SMTP_HOST): no message is sent")
                self._warned = True
            return
        task = asyncio.get_running_loop().create_task(self._send(to, subject, text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, to: str, subject: str, text: str) -> None:
        message = EmailMessage()
        message["From"] = self.settings.smtp_from
        message["To"] = to
        message["Subject"] = subject
        message.set_content(text)
        s = self.settings
        try:
            await aiosmtplib.send(
                message,
                hostname=s.smtp_host,
                port=s.smtp_port,
                username=s.smtp_user,
                password=s.smtp_password,
                start_tls=s.smtp_starttls,
                timeout=s.smtp_timeout_seconds,
            )
        except (aiosmtplib.SMTPException, OSError) as exc:
            self.failed += 1
            log.error("an email could not be sent (%s)", type(exc).__name__)
        else:
            self.sent += 1

    async def drain(self) -> None:
        """Wait for the messages still being sent (shutdown, tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
