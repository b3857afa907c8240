"""device keys: delegations a player registered, and one-time links for a browser's key

Revision ID: d3v1c3k3y5a1
Revises: b07a11c3e5d2
Create Date: 2026-12-01 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd3v1c3k3y5a1'
down_revision = 'b07a11c3e5d2'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('device_keys',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('device_key', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=40), nullable=False),
    sa.Column('not_after', sa.BigInteger(), nullable=False),
    sa.Column('signature', sa.String(length=128), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('device_key')
    )
    with op.batch_alter_table('device_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_device_keys_player_id'), ['player_id'], unique=False)
    op.create_table('device_links',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('label', sa.String(length=40), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('public_key', sa.String(length=64), nullable=True),
    sa.Column('delegation', sa.JSON(), nullable=True),
    sa.Column('done_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    with op.batch_alter_table('device_links', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_device_links_expires_at'), ['expires_at'], unique=False)


def downgrade():
    with op.batch_alter_table('device_links', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_device_links_expires_at'))
    op.drop_table('device_links')
    with op.batch_alter_table('device_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_device_keys_player_id'))
    op.drop_table('device_keys')
