"""What the test modules share: fixtures' helpers, private servers, the
oracles the property tests hold the service to, and each area's steps."""
import pathlib

# The checkout the tests run from (tools/, api-ref/, apache/, bench/).
REPO = pathlib.Path(__file__).resolve().parents[2]
