"""Accounts in headless Chromium: a person signs up, creates a bot account and copies its token, a
real bot process connects with that token, the person plays it from the lobby (which shows the
bot's owner; rated is refused: one owner) and finds the game on the bot's page; the page says why a
bot is revoked by the operator or banned; a forged request is refused; sign-up closed shows no form."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from browser_arena import Site, random_bot

from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.guest import play_mnk_to_end, start_game

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def sign_up(page, name: str, password: str) -> None:
    await page.click('a[data-nav="account"]')
    await page.fill("#sign-up [name=name]", name)
    await page.fill("#sign-up [name=password]", password)
    await page.fill("#sign-up [name=again]", password)
    await page.click("#sign-up button[type=submit]")
    await page.wait_for_function(f"() => document.querySelector('#me .who')?.textContent === {name!r}")


async def banned_on_the_server(site: Site, name: str, banned: bool) -> None:
    """Wait until the server has read the ban list (it looks every second)."""
    async with asyncio.timeout(10):
        while site.server.hub.guard.bans.player_banned(name) != banned:
            await asyncio.sleep(0.05)


async def test_a_person_signs_up_creates_a_bot_and_plays_it(new_page, site: Site) -> None:
    page = await new_page()
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await sign_up(page, "ann", "ann's long password")
    assert "guest" not in await page.inner_text("#me")

    await page.fill("#new-bot [name=bot]", "ann-bot")
    await page.click("#new-bot button[type=submit]")
    await page.wait_for_selector("#bot-token")
    token = await page.input_value("#bot-token")
    assert token.startswith("arb_")
    await page.click("#copy-token")
    assert await page.evaluate("navigator.clipboard.readText()") == token
    await page.wait_for_selector('#my-bots tr[data-bot="ann-bot"]')

    async with random_bot(site.server, "ann-bot", token):
        await page.click('a[data-nav="lobby"]')
        owner = page.locator('#bots li[data-player="ann-bot"] .owner')
        await owner.wait_for()
        assert await owner.inner_text() == "by ann"
        await page.check("#rated")  # a person's own bot is no rating to farm
        await page.select_option("#game", "tictactoe")
        await page.select_option("#opponent", "ann-bot")
        await page.click("#play")
        await page.wait_for_selector(".notice.error >> text=ann and ann-bot have one owner")
        await page.uncheck("#rated")
        match = await start_game(page, "tictactoe", "ann-bot", color="first")
        await play_mnk_to_end(page, 0, 3)
        await page.wait_for_selector("#result:not([hidden])")
        await site.store.flush()
        record = await site.store.get_game(match)
        assert record is not None and record.start.players == ("ann", "ann-bot") and not record.start.rated
        assert record.result is not None and record.rating_changes == {}
        # The bot's page, from the player link in the lobby, lists the game with a link to its replay.
        await page.click('a[data-nav="lobby"]')
        await page.click('#bots li[data-player="ann-bot"] .who a')
        await page.wait_for_selector(f'#player-games [data-match="{match}"]')
        assert (await page.inner_text("#player-name")).startswith("ann-bot")
        await page.click(f'#player-games [data-match="{match}"] a[href*="replay"]')
        await page.wait_for_url(f"**/#/replay/{match}*")

    # Signing out in the page makes it a guest again; signing in brings the account back.
    await page.click('a[data-nav="account"]')
    await page.click("#sign-out")
    await page.wait_for_function("() => document.querySelector('#me')?.textContent.includes('guest')")
    await page.fill("#sign-in [name=name]", "ann")
    await page.fill("#sign-in [name=password]", "not ann's password")
    await page.click("#sign-in button[type=submit]")
    await page.wait_for_selector(".notice.error >> text=wrong name or password")
    await page.fill("#sign-in [name=password]", "ann's long password")
    await page.click("#sign-in button[type=submit]")
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent === 'ann'")
    await page.wait_for_selector('#my-bots tr[data-bot="ann-bot"]')

    # The operator revokes one bot, then bans the person: the page says so, and why.
    await page.fill("#new-bot [name=bot]", "ann-two")
    await page.click("#new-bot button[type=submit]")
    await page.wait_for_selector('#my-bots tr[data-bot="ann-two"]')
    await site.store.revoke_player("ann-two")
    await site.store.add_ban("player", "ann", "farming ratings")
    await banned_on_the_server(site, "ann", True)
    await page.reload()
    await page.wait_for_selector("#account-banned >> text=Banned from this server: farming ratings.")
    for bot in ("ann-bot", "ann-two"):
        status = await page.inner_text(f'#my-bots tr[data-bot="{bot}"] .bot-status')
        assert status == "Banned with its owner ann from this server: farming ratings."
    await site.store.remove_ban("player", "ann")
    await banned_on_the_server(site, "ann", False)
    await page.reload()
    await page.wait_for_selector('#my-bots tr[data-bot="ann-two"] .bot-status >> text=revoked by the operator')
    assert await page.locator('#my-bots tr[data-bot="ann-two"] button').count() == 0  # nothing the owner can do


async def test_a_password_change_closes_the_pages_connection_and_it_comes_back_signed_in(new_page, site: Site) -> None:
    page = await new_page()
    await sign_up(page, "cid", "cid's long password")
    before = site.server.hub.roster.get("cid")
    assert before is not None and before.session is not None
    old_session = before.session
    await page.fill("#change-password [name=current]", "cid's long password")
    await page.fill("#change-password [name=fresh]", "cid's newer password")
    await page.click("#change-password button[type=submit]")
    await page.wait_for_selector(".notice >> text=Password changed")
    async with asyncio.timeout(10):  # closed (4011), and the page said hello again with its new session
        while (now := site.server.hub.roster.get("cid")) is None or now.session in (None, old_session):
            await asyncio.sleep(0.05)
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent === 'cid'")
    assert old_session.closing


async def test_a_request_without_the_pages_csrf_token_is_refused(new_page, site: Site) -> None:
    page = await new_page()
    await sign_up(page, "bea", "bea's long password")
    answer = await page.evaluate(
        """async () => {
          const response = await fetch('/account/bots/new?name=forged', {method: 'POST', credentials: 'same-origin'});
          return {status: response.status, body: await response.json()};
        }"""
    )
    assert answer["status"] == 403 and answer["body"]["error"]["code"] == "csrf"
    assert await site.store.get_player("forged") is None


async def test_sign_up_closed_shows_no_form(new_page, tmp_path: Path) -> None:
    page = await new_page()
    config = ServerConfig(port=0, registration_open=False)
    async with run_server(config, SqliteStore(tmp_path / "closed.db")) as closed:
        await page.goto(closed.http_url + "/#/account")
        await page.wait_for_selector("#sign-up-closed")
        assert await page.locator("#sign-up").count() == 0
        assert await page.locator("#sign-in").count() == 1
