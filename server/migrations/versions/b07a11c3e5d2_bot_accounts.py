"""bot accounts: the keys of the server's bot players (one account per level)

Revision ID: b07a11c3e5d2
Revises: 5d0c1e2b7a41
Create Date: 2026-12-01 09:15:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b07a11c3e5d2'
down_revision = '5d0c1e2b7a41'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('bot_accounts',
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('level', sa.String(length=16), nullable=False),
    sa.Column('private_key', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('player_id'),
    sa.UniqueConstraint('level')
    )


def downgrade():
    op.drop_table('bot_accounts')
