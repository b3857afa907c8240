"""key rotation counter: every rotation proof names the account's count, so it verifies once

Revision ID: f0a1b2c3d4e5
Revises: e4b1c7a2d9f0
Create Date: 2026-12-01 23:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f0a1b2c3d4e5'
down_revision = 'e4b1c7a2d9f0'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('players') as batch:
        batch.add_column(sa.Column('key_rotations', sa.Integer(), nullable=False,
                                   server_default='0'))


def downgrade():
    with op.batch_alter_table('players') as batch:
        batch.drop_column('key_rotations')
